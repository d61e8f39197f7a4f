// Starts the real sitesvc binary for the client suites: a fresh data
// directory, a free loopback port, tokens made with `sitesvc tokens add`.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The repository root: the nearest directory above this file holding
// go.mod (the compiled file runs from scripts/tsclients/build/…).
export const repoRoot = (() => {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "go.mod"))) return dir;
    if (path.dirname(dir) === dir) throw new Error("no go.mod above the test files");
  }
})();

export interface Server {
  url: string;
  dataDir: string;
  /** A bearer token with the admin role (every write). */
  adminToken: string;
  logs(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startServer(): Promise<Server> {
  const bin = process.env.SITESVC_TEST_BINARY ?? path.join(repoRoot, "bin", "sitesvc");
  if (!fs.existsSync(bin)) {
    throw new Error(`no sitesvc binary at ${bin}: run make build, or set SITESVC_TEST_BINARY`);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitesvc-ts-"));
  const adminToken = execFileSync(bin, ["tokens", "add", "--data", dataDir, "--name", "ts-suite", "--role", "admin"], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const url = `http://${addr}`;
  let output = "";
  const child: ChildProcess = spawn(bin, ["serve", "--addr", addr, "--public-url", url, "--data", dataDir, "--log-format", "text"], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (b) => (output += b));
  child.stderr!.on("data", (b) => (output += b));
  let exited = false;
  const done = new Promise<void>((resolve) => child.on("exit", () => ((exited = true), resolve())));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`sitesvc exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`sitesvc not ready after 90 s:\n${output}`);
    }
    // Until this process says it listens, whatever answers is someone else.
    if (output.includes(`msg=listening addr=${addr}\n`)) {
      try {
        const r = await fetch(`${url}/readyz`);
        if (r.ok) break;
      } catch {
        // not accepting yet
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    adminToken,
    logs: () => output,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await done;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
