package dev.resurfacer.iceberg.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
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
  public static final String KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
  /** The host our locations name; {@link #fileIoProperties} points it at the server. */
  public static final String DFS_HOST = ACCOUNT + ".dfs.core.windows.net";
  public static final String BLOB_HOST = ACCOUNT + ".blob.core.windows.net";
  private static final Pattern LISTENING = Pattern.compile("listens on http://127\\.0\\.0\\.1:(\\d+)");

  private final String container;
  private Process process;
  private Path work;
  private int port;
  private Thread stopAtExit;

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
    if (process != null) {
      return this;
    }
    Path home = installed();
    try {
      work = Files.createTempDirectory("azurite");
      process = new ProcessBuilder("node", home.resolve("node_modules/azurite/dist/src/blob/main.js").toString(),
          "--blobHost", "127.0.0.1", "--blobPort", "0", "--inMemoryPersistence", "--extentMemoryLimit", "256",
          "--skipApiVersionCheck", "--loose", "--disableTelemetry", "--silent")
          .directory(work.toFile()).redirectErrorStream(true).start();
      stopAtExit = new Thread(process::destroyForcibly);
      Runtime.getRuntime().addShutdownHook(stopAtExit);
      BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      List<String> seen = new ArrayList<>();
      String line;
      while ((line = out.readLine()) != null) {
        seen.add(line);
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          port = Integer.parseInt(m.group(1));
          break;
        }
      }
      if (port == 0) {
        throw new IllegalStateException("azurite did not start: " + String.join(" | ", seen));
      }
      Thread drain = new Thread(() -> {
        try {
          out.lines().forEach(l -> { });
        } catch (UncheckedIOException stopped) {
          // the server was stopped: its output closed under the reader
        }
      }, "azurite-output");
      drain.setDaemon(true);
      drain.start();
      service().createBlobContainer(container);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The npm package's directory, installed from the committed lock file when the cache does not have it yet. */
  static Path installed() {
    Path spec = findUp("test-servers/azurite");
    if (!onPath("node") || !onPath("npm")) {
      assertThat(System.getenv("CI")).as("CI must have node and npm (for Azurite)").isNotEqualTo("true");
      Assumptions.abort("node/npm are not installed: Azurite cannot run");
    }
    try {
      byte[] lock = Files.readAllBytes(spec.resolve("package-lock.json"));
      String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(lock)).substring(0, 12);
      Path cache = Path.of(System.getProperty("resurfacer.test.cache",
          System.getProperty("user.home") + "/.cache/resurfacer")).resolve("npm/azurite-" + digest);
      if (Files.isRegularFile(cache.resolve("node_modules/azurite/dist/src/blob/main.js"))) {
        return cache;
      }
      Files.createDirectories(cache.getParent());
      Path staging = Files.createTempDirectory(cache.getParent(), "install");
      Files.copy(spec.resolve("package.json"), staging.resolve("package.json"));
      Files.copy(spec.resolve("package-lock.json"), staging.resolve("package-lock.json"));
      Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
          .directory(staging.toFile()).redirectErrorStream(true)
          .redirectOutput(staging.resolve("npm.log").toFile()).start();
      if (!npm.waitFor(10, TimeUnit.MINUTES) || npm.exitValue() != 0) {
        npm.destroyForcibly();
        throw new IllegalStateException("npm ci for azurite failed: " + Files.readString(staging.resolve("npm.log")));
      }
      try {
        Files.move(staging, cache, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException raced) {
        if (!Files.isDirectory(cache)) {
          throw raced; // another run installed it at the same time otherwise
        }
      }
      return cache;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path findUp(String relative) {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve(relative))) {
        return d.resolve(relative);
      }
    }
    throw new IllegalStateException(relative + " not found above " + Path.of("").toAbsolutePath());
  }

  private static boolean onPath(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, name))) {
        return true;
      }
    }
    return false;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port + "/" + ACCOUNT;
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
        "adls.connection-string." + DFS_HOST, endpoint(),
        "adls.connection-string." + BLOB_HOST, endpoint(),
        "adls.auth.shared-key.account.name", ACCOUNT,
        "adls.auth.shared-key.account.key", KEY);
  }

  public BlobServiceClient service() {
    return new BlobServiceClientBuilder().endpoint(endpoint()).credential(new StorageSharedKeyCredential(ACCOUNT, KEY)).buildClient();
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
    for (BlobItem b : blobs().listBlobs(new com.azure.storage.blob.models.ListBlobsOptions().setPrefix(prefix), null)) {
      out.add(root() + "/" + b.getName());
    }
    return out;
  }

  @Override
  public synchronized void close() {
    if (process != null) {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
      try {
        Runtime.getRuntime().removeShutdownHook(stopAtExit);
      } catch (IllegalStateException exiting) {
        // the hook runs anyway
      }
      process = null;
    }
    if (work != null) {
      ChildProcesses.deleteTree(work);
      work = null;
    }
  }
}
