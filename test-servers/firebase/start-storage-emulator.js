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

// The emulator ignores the upload precondition ifGenerationMatch (no such parameter in its source),
// which Cloud Storage honours: a write under ifGenerationMatch=0 fails with 412 when the object
// exists, one under ifGenerationMatch=N when its generation is not N. Delta log entries are created
// that way, so the service's rule is applied here, for resumable uploads (what the Java SDK's
// createFrom and writer send): the precondition given when the session starts is checked when it
// completes, against the stored object and any other completion of that name still in flight, in
// one synchronous step (Node runs one request's code at a time). A precondition on a one-shot
// (multipart or media) upload is refused with 501 rather than ignored. RESURFACER_GCS_PRECONDITIONS=off
// leaves the emulator as it is (the tests' view of a store that ignores preconditions).
const { StorageLayer } = require(path.join(lib, "storage/files.js"));
const { ForbiddenError } = require(path.join(lib, "storage/errors.js"));
const serverModule = require(path.join(lib, "storage/server.js"));
const UPLOAD_ROUTE = "/upload/storage/v1/b/:bucketId/o";
const preconditions = new Map(); // upload id -> the generation it must match ("0": must not exist)
const failed = new Set(); // upload ids whose precondition failed: their 403 is answered as 412
const completing = new Set(); // bucket/object names whose conditional completion is in flight
if (process.env.RESURFACER_GCS_PRECONDITIONS !== "off") {
  const uploadObject = StorageLayer.prototype.uploadObject;
  StorageLayer.prototype.uploadObject = async function (upload) {
    const wanted = preconditions.get(upload.id);
    if (wanted === undefined) {
      return uploadObject.call(this, upload);
    }
    preconditions.delete(upload.id);
    const key = upload.bucketId + "/" + upload.objectId;
    const stored = this.getMetadata(upload.bucketId, upload.objectId);
    const current = stored ? String(stored.generation) : "0";
    if (completing.has(key) || current !== wanted) {
      this._persistence.deleteFile(upload.path, true);
      failed.add(upload.id);
      throw new ForbiddenError();
    }
    completing.add(key);
    try {
      return await uploadObject.call(this, upload);
    } finally {
      completing.delete(key);
    }
  };
  const createApp = serverModule.createApp;
  serverModule.createApp = async function (...args) {
    const app = await createApp.apply(this, args);
    const emulator = args[1];
    const startResumableUpload = emulator.uploadService.startResumableUpload.bind(emulator.uploadService);
    let starting; // the request whose handler is running synchronously
    emulator.uploadService.startResumableUpload = (request) => {
      const upload = startResumableUpload(request);
      if (starting && starting.query.ifGenerationMatch !== undefined) {
        preconditions.set(upload.id, String(starting.query.ifGenerationMatch));
      }
      return upload;
    };
    const wrap = (layers) => {
      for (const layer of layers) {
        if (layer.handle && Array.isArray(layer.handle.stack)) {
          wrap(layer.handle.stack);
        }
        if (!layer.route || layer.route.path !== UPLOAD_ROUTE) {
          continue;
        }
        const last = layer.route.stack[layer.route.stack.length - 1];
        const handle = last.handle;
        last.handle = function (req, res, next) {
          const resumable = (req.query.uploadType || req.header("X-Goog-Upload-Protocol")) === "resumable";
          if (req.method === "POST" && !resumable && req.query.ifGenerationMatch !== undefined) {
            return res.status(501).json({ error: { code: 501, message: "ifGenerationMatch on a one-shot upload is not emulated" } });
          }
          if (req.method === "PUT" && req.query.upload_id) {
            const id = String(req.query.upload_id);
            const sendStatus = res.sendStatus.bind(res);
            res.sendStatus = (status) => {
              if (status === 403 && failed.delete(id)) {
                return res.status(412).json({ error: { code: 412, message: "At least one of the pre-conditions you specified did not hold.", errors: [{ reason: "conditionNotMet" }] } });
              }
              return sendStatus(status);
            };
          }
          starting = req;
          try {
            return handle.call(this, req, res, next);
          } finally {
            starting = undefined;
          }
        };
      }
    };
    const router = app._router;
    wrap(router ? router.stack : []);
    return app;
  };
}

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
