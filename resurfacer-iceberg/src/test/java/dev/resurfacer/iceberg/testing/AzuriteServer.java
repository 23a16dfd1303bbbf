package dev.resurfacer.iceberg.testing;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.common.StorageSharedKeyCredential;
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
 * Azurite's Blob service (npm {@code azurite}, a real Azure Storage API server) on a free loopback
 * port for one test class, in memory. The package is installed with {@code npm ci} from the
 * committed {@code test-servers/azurite/package-lock.json} into a cache directory the first time
 * (about half a minute; {@code .ci/run} does it ahead). Without npm the caller is skipped, and on CI
 * ({@code CI=true}) that fails instead.
 *
 * <p>Azurite serves the Blob API only, not the Data Lake ({@code dfs}) API of a hierarchical
 * namespace; see docs/features.md for what ADLSFileIO does against it.
 */
public final class AzuriteServer implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  /** Azurite's well-known development account and key (public, documented by Azure). */
  public static final String ACCOUNT = "devstoreaccount1";

  public static final String KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
  /** The host our locations name; {@link #fileIoProperties} points it at the server. */
  public static final String DFS_HOST = ACCOUNT + ".dfs.core.windows.net";

  public static final String BLOB_HOST = ACCOUNT + ".blob.core.windows.net";
  private static final Pattern LISTENING =
      Pattern.compile("listens on http://127\\.0\\.0\\.1:(\\d+)");

  private final String container;
  private NpmTestServers.Running server;
  private Path work;

  public AzuriteServer(String container) {
    this.container = container;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  public synchronized AzuriteServer start() {
    if (server != null) {
      return this;
    }
    Path home = installed();
    try {
      work = Files.createTempDirectory("azurite");
      server = NpmTestServers.Running.start(
          new ProcessBuilder(
                  "node",
                  home.resolve("node_modules/azurite/dist/src/blob/main.js").toString(),
                  "--blobHost",
                  "127.0.0.1",
                  "--blobPort",
                  "0",
                  "--inMemoryPersistence",
                  "--extentMemoryLimit",
                  "256",
                  "--skipApiVersionCheck",
                  "--loose",
                  "--disableTelemetry",
                  "--silent")
              .directory(work.toFile()),
          LISTENING,
          "azurite");
      service().createBlobContainer(container);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The npm package's directory, installed from the committed lock file when the cache does not have it yet. */
  static Path installed() {
    return NpmTestServers.installed("azurite", "node_modules/azurite/dist/src/blob/main.js");
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.port() + "/" + ACCOUNT;
  }

  public String container() {
    return container;
  }

  /** {@code abfss://container@devstoreaccount1.dfs.core.windows.net}: where the tests' tables live. */
  public String root() {
    return "abfss://" + container + "@" + DFS_HOST;
  }

  /** ADLSFileIO's standard properties for this server: the endpoint of both hosts and the shared key. */
  public Map<String, String> fileIoProperties() {
    return Map.of(
        "adls.connection-string." + DFS_HOST,
        endpoint(),
        "adls.connection-string." + BLOB_HOST,
        endpoint(),
        "adls.auth.shared-key.account.name",
        ACCOUNT,
        "adls.auth.shared-key.account.key",
        KEY);
  }

  public BlobServiceClient service() {
    return new BlobServiceClientBuilder()
        .endpoint(endpoint())
        .credential(new StorageSharedKeyCredential(ACCOUNT, KEY))
        .buildClient();
  }

  public BlobContainerClient blobs() {
    return service().getBlobContainerClient(container);
  }

  /**
   * Every blob under a location (any of the Azure spellings of this container), listed by the Blob
   * SDK straight from the server, as {@code abfss://container@host/name}.
   */
  public Set<String> objects(String location) {
    String path = dev.resurfacer.storage.StoredFile.parse(location).path();
    String prefix = path.length() <= 1 ? "" : path.substring(1) + "/";
    Set<String> out = new TreeSet<>();
    for (BlobItem b : blobs()
        .listBlobs(new com.azure.storage.blob.models.ListBlobsOptions().setPrefix(prefix), null)) {
      out.add(root() + "/" + b.getName());
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
