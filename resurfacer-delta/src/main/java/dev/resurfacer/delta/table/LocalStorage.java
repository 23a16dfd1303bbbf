package dev.resurfacer.delta.table;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.vacuum.TableListing;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableMarkers;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/**
 * A table on the local disk. Identities are real paths, as the disk spells them: the log's paths
 * (URIs, relative ones against the root) are decoded once and resolved by the table's one
 * {@link StoredFile.Resolver} — every directory link and a linked file itself — so a file named
 * through a linked root, a linked directory inside the table or a {@code ..} has the key of the file
 * it really is; listings walk the real root without following links, so what they find is real
 * already and keyed by {@link #of}.
 */
public final class LocalStorage implements TableStorage {
  private final Path root;
  private final Path realRoot;
  private final Engine engine;
  private final StoredFile.Resolver resolver = new StoredFile.Resolver();

  /**
   * @param root the table's directory as given (absolute, normalized)
   * @param realRoot the same directory with symbolic links resolved; listings start here
   */
  private LocalStorage(Path root, Path realRoot) {
    this.root = root;
    this.realRoot = realRoot;
    this.engine = DefaultEngine.create(DeltaTables.hadoopConf());
  }

  public static LocalStorage open(Path root, Path realRoot) {
    return new LocalStorage(root, realRoot);
  }

  /** The directory as given. */
  public Path directory() {
    return root;
  }

  /** The directory with links resolved. */
  public Path realDirectory() {
    return realRoot;
  }

  @Override
  public Engine engine() {
    return engine;
  }

  @Override
  public StoredFile root() {
    return of(realRoot);
  }

  /** The identity of a path already real (one a listing of the real root found); no link is resolved. */
  public static StoredFile of(Path p) {
    return new StoredFile("file", "", p.toAbsolutePath().normalize().toString());
  }

  public static Path path(StoredFile f) {
    if (!f.isLocal()) {
      throw new IllegalArgumentException(f + " is not a local file");
    }
    return Path.of(f.path());
  }

  @Override
  public URI rootUri() {
    return root.toUri();
  }

  @Override
  public String kernelRoot() {
    return kernelSpelling(root) + "/";
  }

  @Override
  public Engine writingEngine(long targetFileSize) {
    Configuration conf = DeltaTables.hadoopConf();
    conf.setLong(DeltaTables.TARGET_FILE_SIZE, targetFileSize);
    return DefaultEngine.create(conf);
  }

  /**
   * Delta reads a log path as a URI ({@code new Path(new URI(path))}): {@code file:/x}, {@code file:///x},
   * {@code file://localhost/x} and a bare {@code /x} are one file, escapes are decoded once, relative
   * paths are taken against the root. A relative {@code ..} is also taken against the real root when
   * the table was opened through a link: a reader opening it by its real path takes the text back there.
   */
  @Override
  public List<StoredFile> resolveAll(String logPath) {
    URI uri;
    try {
      uri = new URI(logPath);
    } catch (URISyntaxException e) {
      throw new SafetyRefusal("the log names a path that is not a valid URI: " + logPath);
    }
    if (uri.getScheme() != null && !"file".equalsIgnoreCase(uri.getScheme())) {
      throw new SafetyRefusal(
          "the log names a path on another storage (" + uri.getScheme() + "): " + logPath);
    }
    String authority = uri.getRawAuthority();
    String path = uri.getPath();
    boolean absolute = uri.getScheme() != null || authority != null;
    if (uri.isOpaque()
        || (absolute && !path.startsWith("/"))
        || (authority != null
            && !authority.isEmpty()
            && !authority.equalsIgnoreCase("localhost"))) {
      throw new SafetyRefusal(
          "the log names a path that is not a file on this machine: " + logPath);
    }
    try {
      if (path.startsWith("/")) {
        return resolver.resolveAllOnDisk(Path.of(path));
      }
      List<StoredFile> ids = resolver.resolveAllOnDisk(root.resolve(path));
      if (root.equals(realRoot) || !path.contains("..")) {
        return ids;
      }
      Set<StoredFile> every = new LinkedHashSet<>(ids);
      every.addAll(resolver.resolveAllOnDisk(realRoot.resolve(path)));
      return List.copyOf(every);
    } catch (InvalidPathException e) {
      throw new SafetyRefusal("the log names a path this file system cannot hold: " + logPath);
    }
  }

  /** Kernel's paths are Hadoop's spelling, not escaped; their identity is the real file they name. */
  @Override
  public StoredFile fromKernelPath(String kernelPath) {
    return resolver.resolveAllOnDisk(fromKernelSpelling(kernelPath)).get(0);
  }

  @Override
  public String kernelPath(StoredFile file) {
    return kernelSpelling(path(file));
  }

  /** How Kernel's Hadoop-based engine names a local file: {@code file:} and the path, not percent-encoded. */
  public static String kernelSpelling(Path p) {
    return "file:" + p.toAbsolutePath();
  }

  /**
   * The local path a Kernel path spells, links left as they are: where to write what Kernel asks
   * for (a target directory), not an identity.
   */
  public static Path fromKernelSpelling(String kernelPath) {
    return Path.of(
        kernelPath.startsWith("file:")
            ? kernelPath.substring("file:".length()).replaceFirst("^//(?=/)", "")
            : kernelPath);
  }

  @Override
  public List<Entry> listLog() throws IOException {
    List<Entry> out = new ArrayList<>();
    Files.walkFileTree(realRoot.resolve("_delta_log"), new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (attrs.isRegularFile()) {
          out.add(new Entry(of(file), attrs.size(), attrs.lastModifiedTime().toMillis()));
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        return skipVanished(e);
      }
    });
    return out;
  }

  /**
   * A writer's temporary entry can be renamed away between the directory read and the look at it
   * (delta-spark's {@code .N.json.<uuid>.tmp} becoming {@code N.json}): it is not part of the log, so it
   * is skipped; any other failure stands.
   */
  private static FileVisitResult skipVanished(IOException e) throws IOException {
    if (e instanceof NoSuchFileException) {
      return FileVisitResult.CONTINUE;
    }
    throw e;
  }

  /** Walks the real root without following links; see {@link TableListing}. */
  @Override
  public Listing listForVacuum(List<String> partitionColumns) {
    List<Entry> files = new ArrayList<>();
    List<StoredFile> links = new ArrayList<>();
    try {
      Files.walkFileTree(realRoot, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          if (dir.equals(realRoot)) {
            if (TableMarkers.localTables(dir).contains(TableMarkers.Format.ICEBERG)) {
              throw TableListing.icebergAtRoot(of(dir));
            }
            return FileVisitResult.CONTINUE;
          }
          if (TableListing.hidden(dir.getFileName().toString(), partitionColumns)) {
            return FileVisitResult.SKIP_SUBTREE;
          }
          if (!TableMarkers.localTables(dir).isEmpty()) {
            throw TableListing.nestedTable(of(dir));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (attrs.isSymbolicLink()) {
            links.add(of(file));
          } else if (attrs.isRegularFile()
              && !TableListing.hidden(file.getFileName().toString(), partitionColumns)) {
            files.add(new Entry(of(file), attrs.size(), attrs.lastModifiedTime().toMillis()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          throw TableListing.partial(file.toString(), e);
        }
      });
    } catch (IOException e) {
      throw new SafetyRefusal("cannot list " + realRoot + ": " + e.getMessage());
    }
    return new Listing(files, links);
  }

  @Override
  public List<Entry> listOutsideLog() throws IOException {
    Path log = realRoot.resolve("_delta_log");
    List<Entry> out = new ArrayList<>();
    Files.walkFileTree(realRoot, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        return dir.equals(log) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (!attrs.isDirectory()) {
          out.add(new Entry(of(file), attrs.size(), attrs.lastModifiedTime().toMillis()));
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return out;
  }

  @Override
  public Optional<Entry> stat(StoredFile file) throws IOException {
    try {
      BasicFileAttributes a =
          Files.readAttributes(path(file), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return a.isRegularFile()
          ? Optional.of(new Entry(file, a.size(), a.lastModifiedTime().toMillis()))
          : Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public void delete(StoredFile file) throws IOException {
    Path p = path(file);
    Files.delete(p);
    // Hadoop's local file system writes a hidden checksum beside some files; it goes with its file
    Files.deleteIfExists(p.resolveSibling("." + p.getFileName() + ".crc"));
  }

  /**
   * Written in full to a temporary file, forced to disk, then hard-linked to its name: {@code link(2)}
   * fails when the name exists, and no reader sees it half-written.
   */
  @Override
  public void createIfAbsent(StoredFile file, byte[] content) throws IOException {
    Path target = path(file);
    Files.createDirectories(target.getParent());
    Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ch.write(ByteBuffer.wrap(content));
        ch.force(true);
      }
      Files.createLink(target, tmp);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  @Override
  public List<Entry> listDirectory(StoredFile dir) throws IOException {
    List<Entry> out = new ArrayList<>();
    Path d = path(dir);
    if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (Stream<Path> s = Files.list(d)) {
      for (Path p : s.toList()) {
        try {
          BasicFileAttributes a =
              Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          if (a.isRegularFile()) {
            out.add(new Entry(of(p), a.size(), a.lastModifiedTime().toMillis()));
          }
        } catch (NoSuchFileException gone) {
          // removed meanwhile
        }
      }
    }
    return out;
  }

  @Override
  public Optional<String> read(StoredFile file) throws IOException {
    try {
      return Optional.of(Files.readString(path(file), StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public void requireSafeCommits() {}

  @Override
  public void close() {}
}
