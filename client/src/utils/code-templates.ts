// The starter templates and the complete examples of docs/STUDENT_MODULES.md, as text for the
// code-mode editor (bundled from shared/grader/, the files the command-line grader reads).
import type { AlgorithmName } from '@shared/algorithms/algorithm.ts';
import bullyTemplate from '@shared/grader/templates/bully.js?raw';
import ringTemplate from '@shared/grader/templates/ring.js?raw';
import activeListTemplate from '@shared/grader/templates/ring-active-list.js?raw';
import emergentTemplate from '@shared/grader/templates/emergent.js?raw';
import raftTemplate from '@shared/grader/templates/raft.js?raw';

export const TEMPLATES: Readonly<Record<AlgorithmName, string>> = {
  bully: bullyTemplate,
  ring: ringTemplate,
  'ring-active-list': activeListTemplate,
  emergent: emergentTemplate,
  raft: raftTemplate,
};
