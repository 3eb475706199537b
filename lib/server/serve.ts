// `make run` and the tests start the server here: `node --import tsx lib/server/serve.ts start -p 3000`
// runs `next start -p 3000` in WEB_CONCURRENCY processes (lib/server/cluster.ts).
import { startCluster, webConcurrency } from './cluster';

try {
  startCluster(process.argv.slice(2), webConcurrency(process.env.WEB_CONCURRENCY));
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
