/** Helpers of the adapter runners: listening on 127.0.0.1 port 0 and closing for good. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterServer } from 'cellgate/testing';

/** Starts `server` on 127.0.0.1:0 and returns its URL and a close that also drops keep-alive sockets. */
export async function listen(server: Server): Promise<AdapterServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
