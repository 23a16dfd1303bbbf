package dev.resurfacer.delta.s3;

import dev.resurfacer.delta.DeltaSpark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.delta.DeltaLog;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.filesystem.reference.FilesystemConstants;

/**
 * A real S3 API server on loopback: s3proxy 2.6.0 over jclouds' filesystem backend, one bucket,
 * static keys. Objects are files under {@link #backend()}, so a test can age them (their
 * LastModified is the file's modification time) and copy Delta tables in and out.
 */
public final class S3Bucket implements AutoCloseable {
  public static final String ACCESS_KEY = "resurfacer-test";
  public static final String SECRET_KEY = "resurfacer-test-secret";

  private final String bucket;
  private final Path root;
  private final BlobStoreContext context;
  private final S3Proxy proxy;
  private boolean spark;

  public S3Bucket(String bucket) throws Exception {
    this(bucket, true);
  }

  /** {@code authenticated=false} for a backend behind {@link ConditionalPutFront}, which does not re-sign requests. */
  public S3Bucket(String bucket, boolean authenticated) throws Exception {
    this.bucket = bucket;
    root = Files.createTempDirectory("resurfacer-s3");
    Properties props = new Properties();
    props.setProperty(FilesystemConstants.PROPERTY_BASEDIR, root.toString());
    context = ContextBuilder.newBuilder("filesystem")
        .credentials(ACCESS_KEY, SECRET_KEY)
        .overrides(props)
        .build(BlobStoreContext.class);
    context.getBlobStore().createContainerInLocation(null, bucket);
    proxy = S3Proxy.builder()
        .blobStore(context.getBlobStore())
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(
            authenticated ? AuthenticationType.AWS_V2_OR_V4 : AuthenticationType.NONE,
            authenticated ? ACCESS_KEY : null,
            authenticated ? SECRET_KEY : null)
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
  }

  public String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  /** What a delta catalog's {@code properties:} hold to reach this server. */
  public Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", endpoint());
    p.put("s3.path-style-access", "true");
    p.put("s3.access-key-id", ACCESS_KEY);
    p.put("s3.secret-access-key", SECRET_KEY);
    p.put("client.region", "us-east-1");
    return p;
  }

  public String location(String prefix) {
    return "s3://" + bucket + "/" + prefix;
  }

  /** The same objects as {@link #location}, as delta-spark reaches them through Hadoop's S3A. */
  public String s3a(String prefix) {
    return "s3a://" + bucket + "/" + prefix;
  }

  /**
   * Lets the test JVM's delta-spark read and write {@code s3a://<bucket>/} on this server: per-bucket
   * S3A settings (path-style, loopback endpoint, static keys), so buckets of other servers keep theirs.
   * Delta's default log store for s3a, {@code S3SingleDriverLogStore}, is right for one driver.
   */
  public S3Bucket openToSpark() {
    Configuration conf = DeltaSpark.session().sparkContext().hadoopConfiguration();
    conf.set("fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    String b = "fs.s3a.bucket." + bucket + ".";
    conf.set(b + "endpoint", endpoint());
    conf.set(b + "endpoint.region", "us-east-1");
    conf.set(b + "path.style.access", "true");
    conf.set(b + "connection.ssl.enabled", "false");
    conf.set(
        b + "aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set(b + "access.key", ACCESS_KEY);
    conf.set(b + "secret.key", SECRET_KEY);
    conf.set(b + "retry.limit", "2");
    conf.set(b + "attempts.maximum", "2");
    spark = true;
    return this;
  }

  /** The backend directory holding the objects under {@code prefix}. */
  public Path backend(String prefix) {
    return root.resolve(bucket).resolve(prefix);
  }

  /** Copies a local table directory into the bucket under {@code prefix}, modification times kept. */
  public String upload(Path table, String prefix) throws IOException {
    copyTree(table, backend(prefix));
    return location(prefix);
  }

  /** Copies the objects under {@code prefix} to a local directory (what Spark reads as the oracle). */
  public Path download(String prefix, Path to) throws IOException {
    copyTree(backend(prefix), to);
    return to;
  }

  /** Copies the objects under {@code from} to {@code to}, modification times kept: a Delta table's paths are relative, so the same table. */
  public String copy(String from, String to) throws IOException {
    copyTree(backend(from), backend(to));
    return location(to);
  }

  /** Every object key under {@code prefix}, relative to it. */
  public Set<String> keys(String prefix) throws IOException {
    Path base = backend(prefix);
    try (Stream<Path> s = Files.walk(base)) {
      Set<String> out = new TreeSet<>();
      s.filter(Files::isRegularFile).forEach(p -> out.add(base.relativize(p).toString()));
      return out;
    }
  }

  public static void age(Path dir, Instant when) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(p, FileTime.from(when));
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(
              p,
              target,
              java.nio.file.StandardCopyOption.COPY_ATTRIBUTES,
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  @Override
  public void close() throws Exception {
    if (spark) {
      // Hadoop caches one S3A client per bucket name: the next server of this name has another port
      FileSystem.get(URI.create(s3a("")), DeltaSpark.session().sparkContext().hadoopConfiguration())
          .close();
      DeltaLog.clearCache();
    }
    proxy.stop();
    context.close();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
