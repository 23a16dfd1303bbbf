package dev.resurfacer.delta.table;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.vacuum.TableListing;
import dev.resurfacer.storage.CloudSdks;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableMarkers;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A table in an object store: an S3 bucket ({@code s3://}, {@code s3a://} and {@code s3n://} name
 * the same objects) or an Azure container ({@code abfss://}, {@code abfs://}, {@code wasbs://},
 * {@code wasb://}, the account's {@code blob} or {@code dfs} host: one container, see
 * {@link StoredFile}) or a Cloud Storage bucket ({@code gs://}, its name in any case). Kernel reads and writes it through {@link ObjectStoreKernelIO}. Log entries and leases are created by
 * conditional PUT when the store is measured to honour it (a probe object under
 * {@code <table>/_resurfacer/}, written and deleted the first time something must be created), else
 * only when the owner declared one writer ({@code s3.single-writer: true}); otherwise refused.
 */
public final class ObjectStorage implements TableStorage {
  private final StoredFile root;
  private final ObjectStore s3;
  private final Engine engine;
  private ObjectStoreKernelIO.CommitSafety safety;

  private ObjectStorage(StoredFile root, ObjectStore s3) {
    this.root = root;
    this.s3 = s3;
    this.engine = DefaultEngine.create(new ObjectStoreKernelIO(s3, Map.of(), this::safety));
  }

  /**
   * The table at {@code location} ({@code s3://bucket/path}, {@code abfss://container@account.dfs.…/path}, {@code gs://bucket/path});
   * a location without a bucket, container or path is a usage error.
   */
  public static ObjectStorage open(String location, S3Settings settings) {
    CloudSdks.require(location);
    StoredFile root = StoredFile.parse(location);
    if ("abfss".equals(root.scheme())) {
      if (root.authority().indexOf('@') <= 0 || root.path().equals("/")) {
        throw new UsageException(location
            + " is not an abfss://container@account.dfs.core.windows.net/path table location");
      }
      return new ObjectStorage(root, new AzureBlobs(settings));
    }
    if ("gs".equals(root.scheme())) {
      if (root.authority().isEmpty() || root.path().equals("/")) {
        throw new UsageException(location + " is not a gs://bucket/path table location");
      }
      return new ObjectStorage(root, new GcsObjects(settings));
    }
    if (!"s3".equals(root.scheme()) || root.authority().isEmpty() || root.path().equals("/")) {
      throw new UsageException(location + " is not an s3://bucket/path table location");
    }
    return new ObjectStorage(root, new S3Objects(settings));
  }

  static String unsafeCommits(ObjectStore store, String where) {
    return where + ": this " + store.name()
        + " store does not honour conditional PUTs (If-None-Match: *), so a concurrent writer's log entry "
        + "could be overwritten; set " + S3Settings.SINGLE_WRITER
        + ": true in the delta catalog's properties only if no other "
        + "process writes this table";
  }

  synchronized ObjectStoreKernelIO.CommitSafety safety() {
    if (safety == null) {
      boolean honoured;
      try {
        honoured = s3.conditionalPutHonoured(root.authority(), key(root) + "/_resurfacer/");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot check conditional PUT support at " + root, e);
      }
      safety = honoured
          ? ObjectStoreKernelIO.CommitSafety.CONDITIONAL_PUT
          : s3.singleWriter()
              ? ObjectStoreKernelIO.CommitSafety.SINGLE_WRITER
              : ObjectStoreKernelIO.CommitSafety.UNSAFE;
    }
    return safety;
  }

  /** Whether the store was measured to honour conditional PUTs (probes it on the first call). */
  public boolean conditionalPut() {
    return safety() == ObjectStoreKernelIO.CommitSafety.CONDITIONAL_PUT;
  }

  @Override
  public void requireSafeCommits() {
    if (safety() == ObjectStoreKernelIO.CommitSafety.UNSAFE) {
      throw new UsageException(unsafeCommits(s3, root.toString()));
    }
  }

  @Override
  public StoredFile root() {
    return root;
  }

  @Override
  public URI rootUri() {
    return new org.apache.hadoop.fs.Path(kernelRoot()).toUri();
  }

  @Override
  public String kernelRoot() {
    return kernelPath(root) + "/";
  }

  @Override
  public Engine engine() {
    return engine;
  }

  @Override
  public Engine writingEngine(long targetFileSize) {
    return DefaultEngine.create(new ObjectStoreKernelIO(
        s3, Map.of(DeltaTables.TARGET_FILE_SIZE, String.valueOf(targetFileSize)), this::safety));
  }

  private static String key(StoredFile f) {
    return f.path().substring(1);
  }

  /** One identity: S3 has no links, and a key's {@code ..} is only text ({@link StoredFile#parse} takes it back as Hadoop does). */
  @Override
  public List<StoredFile> resolveAll(String logPath) {
    return List.of(resolve(logPath));
  }

  @Override
  public StoredFile resolve(String logPath) {
    URI uri;
    try {
      uri = new URI(logPath);
    } catch (URISyntaxException e) {
      throw new SafetyRefusal("the log names a path that is not a valid URI: " + logPath);
    }
    if (uri.isAbsolute()) {
      StoredFile f = StoredFile.parse(logPath);
      if (!s3.scheme().equals(f.scheme())) {
        throw new SafetyRefusal(
            "the log names a path on another storage (" + uri.getScheme() + "): " + logPath);
      }
      return f;
    }
    if (logPath.startsWith("/")) {
      throw new SafetyRefusal("the log names a rooted path without a bucket: " + logPath);
    }
    for (String seg : uri.getRawPath().split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..")) {
        throw new SafetyRefusal(
            "the log names a relative path with an empty or dot segment: " + logPath);
      }
    }
    // only the relative part is escaped: the root is already decoded, and decoding it twice would
    // turn
    // a literal %41 in its key into A, putting every live file outside the root
    String relative = StoredFile.parse(
            s3.scheme() + "://" + root.authority() + "/" + uri.getRawPath())
        .path();
    return new StoredFile(s3.scheme(), root.authority(), root.path() + relative);
  }

  @Override
  public StoredFile fromKernelPath(String kernelPath) {
    ObjectStoreKernelIO.Location l = ObjectStoreKernelIO.Location.of(kernelPath);
    return listed(s3.scheme(), l.bucket(), l.key());
  }

  @Override
  public String kernelPath(StoredFile file) {
    return file.scheme() + "://" + file.authority() + file.path();
  }

  /** A key as stored: never decoded; one that a parser would normalize (empty or dot segments) cannot be compared safely. */
  private static StoredFile listed(String scheme, String bucket, String key) {
    for (String seg : key.split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..")) {
        throw new SafetyRefusal(scheme + "://" + bucket + "/" + key
            + " has an empty or dot segment; its identity is ambiguous, nothing is deleted");
      }
    }
    return new StoredFile(scheme, bucket, "/" + key);
  }

  private StoredFile listed(ObjectStore.Listed o) {
    return listed(s3.scheme(), o.bucket(), o.key());
  }

  @Override
  public List<Entry> listLog() throws IOException {
    List<Entry> out = new ArrayList<>();
    s3.list(
        root.authority(),
        key(logDir()) + "/",
        Optional.empty(),
        o -> out.add(new Entry(listed(o), o.size(), o.modificationTime())));
    return out;
  }

  /**
   * Every object under the root, with the rules of the local walk applied to each key's segments:
   * a hidden directory or name is left out, a directory holding {@code _delta_log} or Iceberg
   * metadata (another table) is refused, a listing error is a partial listing and refused.
   */
  @Override
  public Listing listForVacuum(List<String> partitionColumns) {
    String prefix = key(root) + "/";
    List<Entry> files = new ArrayList<>();
    try {
      s3.list(root.authority(), prefix, Optional.empty(), o -> {
        StoredFile f = listed(o);
        String relative = o.key().substring(prefix.length());
        var other = TableMarkers.inKey(relative);
        if (other.isPresent()) {
          List<String> at = other.get().directory();
          if (at.isEmpty() && other.get().format() == TableMarkers.Format.ICEBERG) {
            throw TableListing.icebergAtRoot(root);
          }
          if (!at.isEmpty()) {
            throw TableListing.nestedTable(new StoredFile(
                s3.scheme(), root.authority(), root.path() + "/" + String.join("/", at)));
          }
        }
        String[] segs = relative.split("/");
        for (int i = 0; i < segs.length - 1; i++) {
          if (TableListing.hidden(segs[i], partitionColumns)) {
            return;
          }
        }
        if (!TableListing.hidden(segs[segs.length - 1], partitionColumns)) {
          files.add(new Entry(f, o.size(), o.modificationTime()));
        }
      });
    } catch (IOException e) {
      throw TableListing.partial(root.toString(), e);
    }
    return new Listing(files, List.of());
  }

  @Override
  public List<Entry> listOutsideLog() throws IOException {
    String log = key(logDir()) + "/";
    List<Entry> out = new ArrayList<>();
    s3.list(root.authority(), key(root) + "/", Optional.empty(), o -> {
      if (!o.key().startsWith(log)) {
        out.add(new Entry(listed(o), o.size(), o.modificationTime()));
      }
    });
    return out;
  }

  @Override
  public Optional<Entry> stat(StoredFile file) throws IOException {
    return s3.head(file.authority(), key(file))
        .map(h -> new Entry(file, h.size(), h.modificationTime()));
  }

  @Override
  public void delete(StoredFile file) throws IOException {
    if (!s3.scheme().equals(file.scheme())) {
      throw new IllegalArgumentException(file + " is not an object of " + root);
    }
    s3.delete(file.authority(), key(file));
  }

  @Override
  public void createIfAbsent(StoredFile file, byte[] content) throws IOException {
    switch (safety()) {
      case CONDITIONAL_PUT -> s3.putIfAbsent(file.authority(), key(file), content);
      case SINGLE_WRITER -> {
        if (s3.head(file.authority(), key(file)).isPresent()) {
          throw new FileAlreadyExistsException(file.toString());
        }
        s3.put(file.authority(), key(file), content);
      }
      case UNSAFE -> throw new UsageException(unsafeCommits(s3, root.toString()));
    }
  }

  /** Puts the local file {@code content} at {@code file}: a new data file, named for the first time (no conditional PUT). */
  public void upload(StoredFile file, java.nio.file.Path content) throws IOException {
    if (!inside(file)) {
      throw new IllegalArgumentException(file + " is not inside " + root);
    }
    s3.put(file.authority(), key(file), content);
  }

  @Override
  public List<Entry> listDirectory(StoredFile dir) throws IOException {
    List<Entry> out = new ArrayList<>();
    s3.list(
        dir.authority(),
        key(dir) + "/",
        Optional.of("/"),
        o -> out.add(new Entry(listed(o), o.size(), o.modificationTime())));
    return out;
  }

  @Override
  public Optional<String> read(StoredFile file) throws IOException {
    try (InputStream in = s3.read(file.authority(), key(file), 0)) {
      return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (java.io.FileNotFoundException e) {
      return Optional.empty();
    }
  }

  @Override
  public void close() {
    s3.close();
  }

  @Override
  public String toString() {
    return "ObjectStorage[" + root + ", " + s3.describe() + "]";
  }
}
