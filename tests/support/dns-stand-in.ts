/**
 * A DNS server on loopback (UDP) that answers TXT, A and AAAA queries from records the test
 * sets, so that domain verification and the outbound fetch's address checks run through
 * node:dns as in production without the internet: the app is pointed at it with
 * DNS_SERVERS=127.0.0.1:<port>. A name with no record is NXDOMAIN; a name with records
 * answers those of the asked type and nothing for other types.
 *
 * No DNS library is installed, and a TXT answer is a few bytes (RFC 1035 4.1): the header,
 * the question echoed, and per value a resource record pointing at the question's name
 * (0xC00C) whose data is the value in length-prefixed pieces of at most 255 bytes.
 *
 * A browser test's records are set from another process: `controlPort` adds a small HTTP
 * server (PUT /txt/<name> with a JSON array of values, DELETE /txt/<name>, DELETE /txt,
 * GET /txt) that `dnsControl` talks to.
 */
import { createSocket } from "node:dgram";
import { createServer, type IncomingMessage } from "node:http";
import { isIP } from "node:net";

const TYPE_A = 1;
const TYPE_TXT = 16;
const TYPE_AAAA = 28;
const CLASS_IN = 1;
const TTL_SECONDS = 60;

export interface DnsStandIn {
  /** "127.0.0.1:<port>", as DNS_SERVERS takes it. */
  address: string;
  port: number;
  /** The control server's URL, when one was started. */
  controlUrl: string | null;
  /** Replaces the TXT values of `name` (a trailing dot and case do not matter). */
  setTxt(name: string, values: string[]): void;
  /** Replaces the A and AAAA records of `name` (IPv4 and IPv6 addresses). */
  setAddresses(name: string, addresses: string[]): void;
  /** Removes the records of `name`, or all of them. */
  clear(name?: string): void;
  close(): Promise<void>;
}

const canonical = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** The question of a query: its name, type and where it ends; null for anything malformed. */
function readQuestion(query: Buffer): { name: string; type: number; end: number } | null {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = query[offset];
    if (length === undefined || length > 63) return null; // compression never appears in a question
    offset += 1;
    if (length === 0) break;
    if (offset + length > query.length) return null;
    labels.push(query.toString("latin1", offset, offset + length));
    offset += length;
  }
  if (offset + 4 > query.length) return null;
  return { name: labels.join("."), type: query.readUInt16BE(offset), end: offset + 4 };
}

/** The record data of an address: 4 bytes for IPv4, 16 for IPv6. */
function addressBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split(".").map(Number));
  const [head = "", tail = ""] = address.split("::");
  const groups = (part: string) => (part ? part.split(":") : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array<string>(address.includes("::") ? missing : 0).fill("0"), ...groups(tail)];
  const bytes = Buffer.alloc(16);
  all.forEach((group, index) => bytes.writeUInt16BE(parseInt(group, 16), index * 2));
  return bytes;
}

/** The answer to `query` from `records` (TXT values) and `addresses` (A and AAAA). */
function answer(query: Buffer, records: Map<string, string[]>, addresses: Map<string, string[]>): Buffer | null {
  const question = readQuestion(query);
  if (!question) return null;
  const name = canonical(question.name);
  const values = records.get(name);
  const known = addresses.get(name);
  const family = question.type === TYPE_A ? 4 : question.type === TYPE_AAAA ? 6 : 0;
  const addressData = (known ?? []).filter((address) => family && isIP(address) === family).map(addressBytes);
  const answers = values && question.type === TYPE_TXT ? values : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // the query's id
  const opcodeAndRd = query.readUInt16BE(2) & 0x7900;
  // QR, AA and RA set; NXDOMAIN (3) for a name without records.
  header.writeUInt16BE(0x8000 | opcodeAndRd | 0x0400 | 0x0080 | (values || known ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length + addressData.length, 6);
  const record = (type: number, data: Buffer) => {
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    fixed.writeUInt16BE(type, 2);
    fixed.writeUInt16BE(CLASS_IN, 4);
    fixed.writeUInt32BE(TTL_SECONDS, 6);
    fixed.writeUInt16BE(data.length, 10);
    return Buffer.concat([fixed, data]);
  };
  const records_ = answers.map((value) => {
    const bytes = Buffer.from(value, "utf8");
    const pieces: Buffer[] = [];
    for (let at = 0; at < bytes.length || pieces.length === 0; at += 255) {
      const piece = bytes.subarray(at, at + 255);
      pieces.push(Buffer.concat([Buffer.from([piece.length]), piece]));
    }
    return record(TYPE_TXT, Buffer.concat(pieces));
  });
  const addressRecords = addressData.map((data) => record(family === 4 ? TYPE_A : TYPE_AAAA, data));
  return Buffer.concat([header, query.subarray(12, question.end), ...records_, ...addressRecords]);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

export async function startDnsStandIn(options: { port?: number; controlPort?: number } = {}): Promise<DnsStandIn> {
  const records = new Map<string, string[]>();
  const addresses = new Map<string, string[]>();
  const socket = createSocket("udp4");
  socket.on("message", (query, peer) => {
    const reply = answer(query, records, addresses);
    if (reply) socket.send(reply, peer.port, peer.address);
  });
  const port = await new Promise<number>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(options.port ?? 0, "127.0.0.1", () => resolve(socket.address().port));
  });

  const setTxt = (name: string, values: string[]) => void records.set(canonical(name), [...values]);
  const setAddresses = (name: string, values: string[]) => void addresses.set(canonical(name), [...values]);
  const clear = (name?: string) => {
    if (name === undefined) {
      records.clear();
      addresses.clear();
    } else {
      records.delete(canonical(name));
      addresses.delete(canonical(name));
    }
  };

  let control: ReturnType<typeof createServer> | null = null;
  let controlUrl: string | null = null;
  if (options.controlPort !== undefined) {
    control = createServer((req, res) => {
      const name = decodeURIComponent(/^\/txt\/(.+)$/.exec(req.url ?? "")?.[1] ?? "");
      void readBody(req).then((body) => {
        if (req.method === "GET" && req.url === "/txt") {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Object.fromEntries(records)));
        } else if (req.method === "PUT" && name) {
          setTxt(name, JSON.parse(body) as string[]);
          res.writeHead(204).end();
        } else if (req.method === "DELETE") {
          clear(name || undefined);
          res.writeHead(204).end();
        } else {
          res.writeHead(404).end();
        }
      });
    });
    const server = control;
    const listening = await new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.controlPort, "127.0.0.1", () => {
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : 0);
      });
    });
    controlUrl = `http://127.0.0.1:${listening}`;
  }

  return {
    address: `127.0.0.1:${port}`,
    port,
    controlUrl,
    setTxt,
    setAddresses,
    clear,
    async close() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      if (control) {
        control.closeAllConnections();
        await new Promise<void>((resolve) => control!.close(() => resolve()));
      }
    },
  };
}

/** The stand-in's records, set from another process through its control server. */
export function dnsControl(controlUrl: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${controlUrl}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`DNS stand-in: ${method} ${path} answered ${response.status}`);
  };
  return {
    setTxt: (name: string, values: string[]) => call("PUT", `/txt/${encodeURIComponent(name)}`, values),
    clear: (name?: string) => call("DELETE", name === undefined ? "/txt" : `/txt/${encodeURIComponent(name)}`),
  };
}
