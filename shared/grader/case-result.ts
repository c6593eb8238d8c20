// One case of a grade as the report lists it: its verdict, figures, reason and, for a failure, the
// run as a trace (shared by the grade, its explorer case and the runners).
import type { FaultInfo } from './module-fault.ts';
import type { CaseGroup } from './grade-case.ts';
import type { SearchResult } from '../explore/search.ts';

export interface Figure {
  name: string;
  measured: string;
  expected: string;
  pass: boolean;
  /** What was measured is what the documents predict here (outside their assumptions), with the citation: not her bug. */
  predicted?: string;
}

export interface CaseResult {
  id: string;
  group: CaseGroup | 'wire' | 'explore';
  title: string;
  pass: boolean;
  /** Measured against expected, one line each. */
  figures: Figure[];
  /** The first reason it failed, in a sentence. */
  reason: string | null;
  fault: FaultInfo | null;
  /** For a failure: where her run first parted from the reference's on the same case. */
  divergence: string | null;
  /** The explorer's schedule, one line per action. */
  schedule?: string[];
  /** The explorer's labs: what each search proved (exhaustive or the bound that stopped it, and the probes run). */
  proofs?: ExploreProof[];
  /** A failing run as a trace file (JSON Lines) the replay page opens. */
  trace: string | null;
  ms: number;
}

export interface ExploreProof {
  lab: string;
  exhaustive: boolean;
  states: number;
  depth: number;
  /** The breadth-first search's bound that stopped it (null: exhausted or a violation found). */
  bound: SearchResult['bound'];
  probes: SearchResult['probes'];
}
