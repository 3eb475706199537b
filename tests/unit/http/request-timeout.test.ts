import http from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { setRequestTimeout } from '@/lib/http/request-timeout';

/** One request on a fresh connection, answered. */
function roundTrip(port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', () => undefined);
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

describe('setRequestTimeout', () => {
  it('applies to a server created before it, from the next connection on', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    expect(server.requestTimeout).toBe(300_000); // Node's default, which ends long uploads
    setRequestTimeout(4 * 3600_000);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await roundTrip(port);
    expect(server.requestTimeout).toBe(4 * 3600_000);
    expect(server.headersTimeout).toBe(60_000);
    setRequestTimeout(20_000);
    await roundTrip(port);
    expect(server.requestTimeout).toBe(20_000);
    expect(server.headersTimeout).toBe(20_000);
    await new Promise((r) => server.close(r));
  });
});
