// The benchmark's better-auth reference (scripts/bench.mjs starts it as a child process): the
// installed better-auth with email and password, its session cookie cache (60 s, as the
// app's), on better-sqlite3 in the file REFERENCE_DATABASE, served by toNodeHandler on
// node:http at 127.0.0.1:PORT. Its tables come from better-auth's own migration API; one user
// (BENCH_EMAIL, BENCH_PASSWORD) is made before it listens.
//
// Passwords are hashed with bcryptjs at BCRYPT_COST, the app's cost (the bench reads it from
// the app's own hash), through better-auth's `emailAndPassword.password` option: a sign-in
// then costs both servers the same hash, and the storm compares the servers rather than the
// algorithms. (better-auth's default, scrypt N=16384 r=16, costs about twice as much per
// sign-in; the bench prints both.) Rate limits are off, as the app's are in the bench.
import { createServer } from "node:http";
import bcrypt from "bcryptjs";
import Database from "better-sqlite3";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { toNodeHandler } from "better-auth/node";

const port = Number(process.env.PORT);
const base = `http://127.0.0.1:${port}`;
const auth = betterAuth({
  baseURL: base,
  secret: "benchmark-secret-0123456789abcdefghijklmnop",
  database: new Database(process.env.REFERENCE_DATABASE),
  emailAndPassword: {
    enabled: true,
    password: {
      hash: (password) => bcrypt.hash(password, Number(process.env.BCRYPT_COST)),
      verify: ({ hash, password }) => bcrypt.compare(password, hash),
    },
  },
  session: { cookieCache: { enabled: true, maxAge: 60 } },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
await auth.api.signUpEmail({
  body: { email: process.env.BENCH_EMAIL, password: process.env.BENCH_PASSWORD, name: "Bench" },
});

const server = createServer(toNodeHandler(auth)).listen(port, "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
