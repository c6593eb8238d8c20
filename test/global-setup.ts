// The e2e project's global setup (vitest.config.ts), run once before its first file: the browser
// tests need the built app, and building it here (not in each file) keeps parallel files from
// rebuilding under each other's servers. The other projects do not run it, so a unit run after
// editing shared/ never waits for a Vite build.
import { ensureClientBuild } from './helpers/client-build.ts';

export default async function setup(): Promise<void> {
  await ensureClientBuild();
}
