// Runs once before every test file: the browser tests need the built app, and building it
// here (not in each file) keeps parallel files from rebuilding under each other's servers.
import { ensureClientBuild } from './helpers/client-build.ts';

export default async function setup(): Promise<void> {
  await ensureClientBuild();
}
