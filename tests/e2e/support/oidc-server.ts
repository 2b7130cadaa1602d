/**
 * The OpenID Connect stand-in for browser tests, as its own process (a Playwright web
 * server, see playwright.config.ts): the app is started pointing at it, so its issuer must be
 * known in advance (E2E_OIDC_PORT). Tests choose who signs in next through a small control
 * server on the following port: POST /user with the user's claims as JSON; and register an
 * organization's own client (single sign-on) with POST /client (a StandInClient as JSON).
 */
import { createServer } from "node:http";
import { startOidcStandIn, type StandInClient, type StandInUser } from "../../support/oidc-stand-in";

const port = Number(process.env.E2E_OIDC_PORT);
const standIn = await startOidcStandIn({ port, appBaseUrl: process.env.E2E_APP_URL });

createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    if (req.method === "POST" && req.url === "/user") {
      standIn.setUser(JSON.parse(body) as StandInUser);
      res.writeHead(204).end();
    } else if (req.method === "POST" && req.url === "/client") {
      standIn.addClient(JSON.parse(body) as StandInClient).then(
        () => res.writeHead(204).end(),
        (error: Error) => res.writeHead(400).end(error.message),
      );
    } else {
      res.writeHead(404).end();
    }
  });
}).listen(port + 1, "127.0.0.1", () => console.log(`OIDC stand-in on ${standIn.issuer}`));
