package dev.resurfacer.delta.table;

import dev.resurfacer.SafetyRefusal;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The identity of a stored file of one Delta table: every path the log names and every path a
 * listing finds is turned into one absolute, normalized path under the table's real root before
 * they are compared. Delta writes relative paths URL-encoded ({@code a%20b/part-0.parquet} names the
 * file {@code a b/part-0.parquet}), absolute ones as {@code file:} URIs; dot segments are resolved,
 * and a path given through the root's symbolic link is mapped onto the real root.
 */
public record TablePaths(Path root, Path realRoot) {

  /**
   * The absolute path a log entry's {@code path} names, or a {@link SafetyRefusal} when it cannot be
   * read as a local path (another scheme, malformed encoding): comparing such a path by its text
   * could mistake a live file for an unreferenced one.
   */
  public Path resolve(String logPath) {
    URI uri;
    try {
      uri = new URI(logPath);
    } catch (URISyntaxException e) {
      throw new SafetyRefusal("the log names a path that is not a valid URI: " + logPath);
    }
    Path p;
    if (uri.isAbsolute()) {
      if (!"file".equalsIgnoreCase(uri.getScheme())) {
        throw new SafetyRefusal("the log names a path on another storage (" + uri.getScheme() + "): " + logPath);
      }
      p = Paths.get(URI.create("file://" + uri.getRawPath()));
    } else if (uri.getPath().startsWith("/")) {
      p = Path.of(uri.getPath());
    } else {
      p = root.resolve(uri.getPath());
    }
    return onRealRoot(p.normalize());
  }

  /** {@code p} with the root prefix replaced by the real root when it was reached through the given root. */
  public Path onRealRoot(Path p) {
    Path n = p.toAbsolutePath().normalize();
    if (!root.equals(realRoot) && n.startsWith(root)) {
      return realRoot.resolve(root.relativize(n)).normalize();
    }
    return n;
  }

  /** How Kernel's Hadoop-based engine names a local file: {@code file:} and the path, not percent-encoded. */
  public static String kernelPath(Path p) {
    return "file:" + p.toAbsolutePath();
  }

  /** The local file a Kernel (Hadoop-style, unencoded) path names. */
  public static Path fromKernelPath(String kernelPath) {
    return Path.of(kernelPath.startsWith("file:") ? kernelPath.substring("file:".length()).replaceFirst("^//(?=/)", "") : kernelPath);
  }

  public boolean inside(Path p) {
    return p.startsWith(realRoot) && !p.equals(realRoot);
  }
}
