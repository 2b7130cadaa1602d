/**
 * A TCP proxy to put between the app and a service it depends on (PostgreSQL, SMTP), so a
 * test can take the service away and bring it back: `cut()` stops accepting connections and
 * destroys the open ones (the service "stopped", or the network between them failed), and
 * `restore()` listens again on the same port. `hold()` keeps whatever the app sends from
 * reaching the service, so its requests are in flight at the moment of a cut.
 */
import net from "node:net";

export interface TcpProxy {
  port: number;
  /** 127.0.0.1:<port>, to put in a URL in place of the service's host and port. */
  host: string;
  /** Bytes the app sent while held, not passed on. */
  heldBytes(): number;
  hold(): void;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let held = false;
  let heldBytes = 0;

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("data", (chunk: Buffer) => {
      if (held) heldBytes += chunk.length;
      else upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);

  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await closed;
  };

  return {
    port,
    host: `127.0.0.1:${port}`,
    heldBytes: () => heldBytes,
    hold() {
      held = true;
      heldBytes = 0;
    },
    cut,
    async restore() {
      held = false;
      await listen(port);
    },
    async close() {
      if (server.listening) await cut();
    },
  };
}
