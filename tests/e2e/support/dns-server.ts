/**
 * The DNS stand-in for browser tests, as its own process (a Playwright web server, see
 * playwright.config.ts): the app resolves domain-verification records through it
 * (DNS_SERVERS), and tests set the records over HTTP on the same port number (TCP).
 */
import { startDnsStandIn } from "../../support/dns-stand-in";

const port = Number(process.env.E2E_DNS_PORT);
const dns = await startDnsStandIn({ port, controlPort: port });
console.log(`DNS stand-in on ${dns.address} (udp), control ${dns.controlUrl}`);
