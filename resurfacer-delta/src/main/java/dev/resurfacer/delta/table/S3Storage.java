package dev.resurfacer.delta.table;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.vacuum.TableListing;
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
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * A table in an S3 bucket ({@code s3://}, {@code s3a://} and {@code s3n://} name the same objects).
 * Kernel reads and writes it through {@link S3KernelIO}. Log entries and leases are created by
 * conditional PUT when the store is measured to honour it (a probe object under
 * {@code <table>/_resurfacer/}, written and deleted the first time something must be created), else
 * only when the owner declared one writer ({@code s3.single-writer: true}); otherwise refused.
 */
public final class S3Storage implements TableStorage {
  private final StoredFile root;
  private final S3Objects s3;
  private final Engine engine;
  private S3KernelIO.CommitSafety safety;

  private S3Storage(StoredFile root, S3Objects s3) {
    this.root = root;
    this.s3 = s3;
    this.engine = DefaultEngine.create(new S3KernelIO(s3, Map.of(), this::safety));
  }

  /** The table at {@code location} ({@code s3://bucket/path}); a location without a bucket or path is a usage error. */
  public static S3Storage open(String location, S3Settings settings) {
    StoredFile root = StoredFile.parse(location);
    if (!"s3".equals(root.scheme()) || root.authority().isEmpty() || root.path().equals("/")) {
      throw new UsageException(location + " is not an s3://bucket/path table location");
    }
    return new S3Storage(root, new S3Objects(settings));
  }

  static String unsafeCommits(String where) {
    return where + ": this S3 store does not honour conditional PUTs (If-None-Match: *), so a concurrent writer's log entry "
        + "could be overwritten; set " + S3Settings.SINGLE_WRITER + ": true in the delta catalog's properties only if no other "
        + "process writes this table";
  }

  synchronized S3KernelIO.CommitSafety safety() {
    if (safety == null) {
      boolean honoured;
      try {
        honoured = s3.conditionalPutHonoured(root.authority(), key(root) + "/_resurfacer/");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot check conditional PUT support at " + root, e);
      }
      safety = honoured ? S3KernelIO.CommitSafety.CONDITIONAL_PUT
          : s3.settings().singleWriter() ? S3KernelIO.CommitSafety.SINGLE_WRITER : S3KernelIO.CommitSafety.UNSAFE;
    }
    return safety;
  }

  /** Whether the store was measured to honour conditional PUTs (probes it on the first call). */
  public boolean conditionalPut() {
    return safety() == S3KernelIO.CommitSafety.CONDITIONAL_PUT;
  }

  @Override
  public void requireSafeCommits() {
    if (safety() == S3KernelIO.CommitSafety.UNSAFE) {
      throw new UsageException(unsafeCommits(root.toString()));
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
    return DefaultEngine.create(new S3KernelIO(s3, Map.of(DeltaTables.TARGET_FILE_SIZE, String.valueOf(targetFileSize)), this::safety));
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
      if (!"s3".equals(f.scheme())) {
        throw new SafetyRefusal("the log names a path on another storage (" + uri.getScheme() + "): " + logPath);
      }
      return f;
    }
    if (logPath.startsWith("/")) {
      throw new SafetyRefusal("the log names a rooted path without a bucket: " + logPath);
    }
    for (String seg : uri.getRawPath().split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..")) {
        throw new SafetyRefusal("the log names a relative path with an empty or dot segment: " + logPath);
      }
    }
    // only the relative part is escaped: the root is already decoded, and decoding it twice would turn
    // a literal %41 in its key into A, putting every live file outside the root
    String relative = StoredFile.parse("s3://" + root.authority() + "/" + uri.getRawPath()).path();
    return new StoredFile("s3", root.authority(), root.path() + relative);
  }

  @Override
  public StoredFile fromKernelPath(String kernelPath) {
    S3KernelIO.Location l = S3KernelIO.Location.of(kernelPath);
    return listed(l.bucket(), l.key());
  }

  @Override
  public String kernelPath(StoredFile file) {
    return "s3://" + file.authority() + file.path();
  }

  /** A key as stored: never decoded; one that a parser would normalize (empty or dot segments) cannot be compared safely. */
  private static StoredFile listed(String bucket, String key) {
    for (String seg : key.split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..")) {
        throw new SafetyRefusal("s3://" + bucket + "/" + key + " has an empty or dot segment; its identity is ambiguous, nothing is deleted");
      }
    }
    return new StoredFile("s3", bucket, "/" + key);
  }

  @Override
  public List<Entry> listLog() throws IOException {
    List<Entry> out = new ArrayList<>();
    s3.list(root.authority(), key(logDir()) + "/", Optional.empty(),
        o -> out.add(new Entry(listed(o.bucket(), o.key()), o.size(), o.modificationTime())));
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
        StoredFile f = listed(o.bucket(), o.key());
        String relative = o.key().substring(prefix.length());
        var other = TableMarkers.inKey(relative);
        if (other.isPresent()) {
          List<String> at = other.get().directory();
          if (at.isEmpty() && other.get().format() == TableMarkers.Format.ICEBERG) {
            throw TableListing.icebergAtRoot(root);
          }
          if (!at.isEmpty()) {
            throw TableListing.nestedTable(new StoredFile("s3", root.authority(), root.path() + "/" + String.join("/", at)));
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
        out.add(new Entry(listed(o.bucket(), o.key()), o.size(), o.modificationTime()));
      }
    });
    return out;
  }

  @Override
  public Optional<Entry> stat(StoredFile file) throws IOException {
    return s3.head(file.authority(), key(file)).map(h -> new Entry(file, h.size(), h.modificationTime()));
  }

  @Override
  public void delete(StoredFile file) throws IOException {
    if (!"s3".equals(file.scheme())) {
      throw new IllegalArgumentException(file + " is not an S3 object");
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
        s3.put(file.authority(), key(file), RequestBody.fromBytes(content));
      }
      case UNSAFE -> throw new UsageException(unsafeCommits(root.toString()));
    }
  }

  /** Puts the local file {@code content} at {@code file}: a new data file, named for the first time (no conditional PUT). */
  public void upload(StoredFile file, java.nio.file.Path content) throws IOException {
    if (!inside(file)) {
      throw new IllegalArgumentException(file + " is not inside " + root);
    }
    s3.put(file.authority(), key(file), RequestBody.fromFile(content));
  }

  @Override
  public List<Entry> listDirectory(StoredFile dir) throws IOException {
    List<Entry> out = new ArrayList<>();
    s3.list(dir.authority(), key(dir) + "/", Optional.of("/"), o -> out.add(new Entry(listed(o.bucket(), o.key()), o.size(),
        o.modificationTime())));
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
    return "S3Storage[" + root + ", " + s3.settings() + "]";
  }
}
