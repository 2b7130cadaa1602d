// What the benchmark's sections share: free ports, the server started as `npm start` starts
// it, waiting for a server to answer, and reading a process's CPU time and memory from /proc.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export const BROWSER =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

export const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/**
 * How `npm start` runs the server: its environment settings (NAME=value before the command)
 * and its Node flags, so that every server the bench starts runs exactly as in production.
 */
export function startCommand() {
  const words = JSON.parse(readFileSync("package.json", "utf8")).scripts.start.split(/\s+/);
  const env = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, value] = words.shift().split("=");
    env[name] = value;
  }
  return { env, args: words.slice(1) }; // after `node`
}

/** Resolves once `url` answers as `ready` says (by default: 2xx), else fails after a minute. */
export async function waitFor(url, what, ready = (response) => response.ok) {
  for (let i = 0; ; i++) {
    const up = await fetch(url).then(ready, () => false);
    if (up) return;
    if (i > 240) throw new Error(`${what} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A process's CPU time so far, user + system, in ms (USER_HZ is 100 on Linux). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's resident size now (VmRSS), or its highest so far (VmHWM), in MB. */
export function rssMb(pid, which = "VmRSS") {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${which}:\\s+(\\d+) kB`));
  return line ? Number(line[1]) / 1024 : 0;
}

/** Sends SIGTERM to a child process and resolves when it has exited. */
export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  return exited;
}
