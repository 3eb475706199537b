// The machine's own floor for issue 3's load (bench/fields.ts): a server with no framework and no
// database, laid out as ours is (node:cluster, two processes on one port, connections handed out in
// turn), that spends a set CPU time on each request and answers a single field's worth of JSON. At
// the CPU a request our routes cost, it shows what throughput and p99 this machine's two cores allow
// under the same 16 clients, whatever the code doing the work.
import cluster from 'node:cluster';
import { createServer } from 'node:http';

const port = Number(process.env.PORT);
const spendMicros = Number(process.env.SPEND_US ?? 0);
const PROCESSES = 2;

// About the size of a field of 50-200 vertices as GET /api/fields/{id} answers it.
const BODY = JSON.stringify({ id: 1, name: 'Поле', geometry: { type: 'Polygon', coordinates: [Array.from({ length: 125 }, (_, i) => [39.1234567 + i / 1e4, 47.1234567])] } });

/** Busy until this process has used `micros` more of CPU time (not wall time: a preempted process keeps spending). */
function spend(micros) {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const until = cpu() + micros;
  let x = 0;
  while (cpu() < until) for (let i = 0; i < 200; i++) x += Math.sqrt(i);
  return x;
}

if (cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_RR;
  let listening = 0;
  for (let i = 0; i < PROCESSES; i++) {
    cluster.fork().on('listening', () => {
      if (++listening === PROCESSES) console.log('ready');
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (spendMicros > 0) spend(spendMicros);
      res.writeHead(200, { 'content-type': 'application/json' }).end(BODY);
    });
  }).listen(port, '127.0.0.1');
}
