// Starts firebase-tools' Cloud Storage emulator on 127.0.0.1 (a free port, or argv[2]) and prints
// "gcs emulator listening on http://127.0.0.1:PORT"; stops on SIGTERM/SIGINT or when stdin closes.
// Usage: node start-storage-emulator.js [port], run from the directory npm ci installed into.
"use strict";
const net = require("net");
const path = require("path");
const lib = path.join(process.cwd(), "node_modules/firebase-tools/lib/emulator");
const { StorageEmulator } = require(path.join(lib, "storage/index.js"));
const { StorageRulesRuntime } = require(path.join(lib, "storage/rules/runtime.js"));
const { EmulatorRegistry } = require(path.join(lib, "registry.js"));
const shared = require(path.join(lib, "storage/apis/shared.js"));

// The rules runtime is a jar firebase-tools downloads at start from a host outside the registries
// this machine reaches; it only evaluates Security Rules for the Firebase /v0 endpoints, while the
// GCS JSON API (/storage/v1, /upload/storage/v1, /download/storage/v1) is served as admin, unguarded.
StorageRulesRuntime.prototype.start = async function () {};
StorageRulesRuntime.prototype.stop = async function () {};
StorageEmulator.prototype.createRulesManager = function () {
  return { start: async () => [], stop: async () => {}, getRuleset: () => undefined };
};

// A range that starts at or past the end of an object is answered by Cloud Storage with 416; the
// emulator sends the whole object (200) instead, and a client reading on from its end sees the object
// again. Answer it as the service does (the SDK's reader takes 416 as the end of the object).
const sendFileBytes = shared.sendFileBytes;
shared.sendFileBytes = function (md, data, req, res) {
  if (req.headers.range && md.contentEncoding !== "gzip" && req.range(data.byteLength, { combine: true }) === -1) {
    res.setHeader("Content-Range", `bytes */${data.byteLength}`);
    return res.status(416).end();
  }
  return sendFileBytes(md, data, req, res);
};

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });
}

(async () => {
  const port = process.argv[2] ? Number(process.argv[2]) : await freePort();
  const emulator = new StorageEmulator({ projectId: "resurfacer-test", host: "127.0.0.1", port, auto_download: false });
  // through the registry: the emulator builds its upload and media links from the registered address
  await EmulatorRegistry.start(emulator);
  console.log(`gcs emulator listening on http://127.0.0.1:${port}`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await EmulatorRegistry.stop(emulator.getName()).catch(() => {});
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.stdin.on("end", stop);
  process.stdin.resume();
})().catch((e) => {
  console.error("gcs emulator did not start: " + (e && e.stack ? e.stack : e));
  process.exit(1);
});
