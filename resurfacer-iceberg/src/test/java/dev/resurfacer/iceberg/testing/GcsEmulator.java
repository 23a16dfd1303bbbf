package dev.resurfacer.iceberg.testing;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The Cloud Storage emulator of npm {@code firebase-tools} (a real GCS JSON-API server) on a free
 * loopback port for one test class, started by the committed {@code
 * test-servers/firebase/start-storage-emulator.js} (which leaves out the Security Rules runtime, see
 * there) from the package installed by {@link NpmTestServers}. Its blobs live under a temporary
 * directory of its own. It does not serve the batch endpoint (501).
 */
public final class GcsEmulator implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  public static final String PROJECT = "resurfacer-test";
  private static final Pattern LISTENING =
      Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

  private final String bucket;
  private final Map<String, String> environment;
  private NpmTestServers.Running server;
  private Path work;

  public GcsEmulator(String bucket) {
    this(bucket, Map.of());
  }

  /**
   * With {@code environment} for the launcher: {@code RESURFACER_GCS_PRECONDITIONS=off} leaves the
   * emulator ignoring upload preconditions, as it does unpatched.
   */
  public GcsEmulator(String bucket, Map<String, String> environment) {
    this.bucket = bucket;
    this.environment = Map.copyOf(environment);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  public synchronized GcsEmulator start() {
    if (server != null) {
      return this;
    }
    Path home = NpmTestServers.installed(
        "firebase", "node_modules/firebase-tools/lib/emulator/storage/index.js");
    Path launcher = NpmTestServers.findUp("test-servers/firebase/start-storage-emulator.js");
    try {
      work = Files.createTempDirectory("gcs-emulator");
      ProcessBuilder pb = new ProcessBuilder("node", launcher.toString()).directory(home.toFile());
      // the emulator keeps its blobs under $TMPDIR/firebase/storage: one directory per server
      pb.environment().put("TMPDIR", work.toString());
      pb.environment().putAll(environment);
      server = NpmTestServers.Running.start(pb, LISTENING, "gcs-emulator");
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.port();
  }

  public String bucket() {
    return bucket;
  }

  /** {@code gs://bucket}: where the tests' tables live. */
  public String root() {
    return "gs://" + bucket;
  }

  /** GCSFileIO's standard properties for this server: its project, its host, no credentials. */
  public Map<String, String> fileIoProperties() {
    return Map.of("gcs.project-id", PROJECT, "gcs.service.host", endpoint(), "gcs.no-auth", "true");
  }

  /** The SDK's JSON-API client on this server, for the tests' own view of the bucket. */
  public Storage storage() {
    return StorageOptions.http()
        .setHost(endpoint())
        .setProjectId(PROJECT)
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
  }

  public void put(String name, byte[] content) {
    // a resumable upload, as GCSFileIO writes (the emulator's multipart parser wants the part's
    // content type first)
    try (Storage s = storage();
        var writer = s.writer(BlobInfo.newBuilder(BlobId.of(bucket, name)).build())) {
      writer.write(java.nio.ByteBuffer.wrap(content));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every object under a location of this bucket, listed by the SDK straight from the server, as {@code gs://bucket/name}. */
  public Set<String> objects(String location) {
    String path = dev.resurfacer.storage.StoredFile.parse(location).path();
    String prefix = path.length() <= 1 ? "" : path.substring(1) + "/";
    Set<String> out = new TreeSet<>();
    try (Storage s = storage()) {
      for (Blob b : s.list(bucket, Storage.BlobListOption.prefix(prefix)).iterateAll()) {
        out.add(root() + "/" + b.getName());
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop();
      server = null;
    }
    if (work != null) {
      ChildProcesses.deleteTree(work);
      work = null;
    }
  }
}
