// `make run` and the tests start the server here: `node --import tsx lib/server/serve.ts start -p 3000`
// takes `next start`'s arguments and runs WEB_CONCURRENCY web processes (lib/server/cluster.ts).
import { startCluster, webConcurrency } from './cluster';

try {
  startCluster(process.argv.slice(2), webConcurrency(process.env.WEB_CONCURRENCY));
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
