// Next.js calls register() once when a server process starts, in each runtime it builds for. The
// start-up is Node.js code (lib/server/start-process.ts): imported only under this condition, which
// the Edge build drops, so that build never meets Node's modules.
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') await (await import('./lib/server/start-process')).startServerProcess();
}
