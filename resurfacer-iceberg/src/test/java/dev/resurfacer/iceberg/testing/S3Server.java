package dev.resurfacer.iceberg.testing;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileInfo;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.filesystem.reference.FilesystemConstants;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real S3 API server on loopback for one test class: s3proxy over jclouds' filesystem backend,
 * with static keys and one bucket. Register with {@code @RegisterExtension static S3Server S3 = new S3Server();}
 * (or {@link #start()} / {@link #close()} by hand).
 */
public final class S3Server implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  public static final String ACCESS_KEY = "resurfacer-test";
  public static final String SECRET_KEY = "resurfacer-test-secret";
  public static final String REGION = "us-east-1";

  private final String bucket;
  private Path root;
  private BlobStoreContext context;
  private S3Proxy proxy;

  public S3Server() {
    this("warehouse");
  }

  public S3Server(String bucket) {
    this.bucket = bucket;
  }

  public S3Server start() {
    if (proxy != null) {
      return this;
    }
    try {
      root = Files.createTempDirectory("s3server");
      Properties props = new Properties();
      props.setProperty(FilesystemConstants.PROPERTY_BASEDIR, root.toString());
      context = ContextBuilder.newBuilder("filesystem")
          .credentials(ACCESS_KEY, SECRET_KEY)
          .overrides(props)
          .build(BlobStoreContext.class);
      BlobStore store = context.getBlobStore();
      store.createContainerInLocation(null, bucket);
      proxy = S3Proxy.builder()
          .blobStore(store)
          .endpoint(URI.create("http://127.0.0.1:0"))
          .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
          // DeleteObjects always carries a flexible checksum header (x-amz-checksum-crc32), which
          // s3proxy does not know and otherwise rejects, failing every bulk delete
          .ignoreUnknownHeaders(true)
          .build();
      proxy.start();
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!"STARTED".equals(proxy.getState())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
        }
        Thread.sleep(10);
      }
      return this;
    } catch (Exception e) {
      close();
      throw new IllegalStateException("cannot start s3proxy", e);
    }
  }

  @Override
  public void close() {
    try {
      if (proxy != null) {
        proxy.stop();
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      proxy = null;
      if (context != null) {
        context.close();
        context = null;
      }
      ChildProcesses.deleteTree(root);
      root = null;
    }
  }

  @Override
  public void beforeAll(ExtensionContext ctx) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext ctx) {
    close();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  public String bucket() {
    return bucket;
  }

  /** {@code s3://bucket/prefix}, the warehouse location for a test. */
  public String warehouse(String prefix) {
    return "s3://" + bucket + "/" + prefix;
  }

  /** The catalog/FileIO properties a client needs to reach this server (what a user writes in resurfacer.yml). */
  public Map<String, String> clientProperties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", endpoint());
    p.put("s3.path-style-access", "true");
    p.put("s3.access-key-id", ACCESS_KEY);
    p.put("s3.secret-access-key", SECRET_KEY);
    p.put("client.region", REGION);
    return p;
  }

  /** An S3FileIO of our own, independent of any catalog, for looking at the bucket. */
  public S3FileIO fileIO() {
    S3FileIO io = new S3FileIO();
    io.initialize(clientProperties());
    return io;
  }

  /**
   * Every object under an {@code s3://} prefix, listed through the S3 API. The filesystem backend
   * reports directories as placeholder objects ending in "/": they are not files and are skipped.
   */
  public Set<String> objects(String prefix) {
    Set<String> out = new TreeSet<>();
    try (S3FileIO io = fileIO()) {
      for (FileInfo f : io.listPrefix(prefix.endsWith("/") ? prefix : prefix + "/")) {
        if (!f.location().endsWith("/")) {
          out.add(f.location());
        }
      }
    }
    return out;
  }

  /** Where the backend keeps an object on local disk (to age files for orphan tests). */
  public Path localFile(String s3Location) {
    String prefix = "s3://" + bucket + "/";
    if (!s3Location.startsWith(prefix)) {
      throw new IllegalArgumentException(s3Location + " is not in bucket " + bucket);
    }
    return root.resolve(bucket).resolve(s3Location.substring(prefix.length()));
  }
}
