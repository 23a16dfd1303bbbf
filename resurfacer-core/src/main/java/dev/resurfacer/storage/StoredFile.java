package dev.resurfacer.storage;

import dev.resurfacer.SafetyRefusal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The identity of a stored file: every comparison of file locations (a listing against references,
 * a scope against a neighbour, expiry's kept set against its candidates, a delete guard) goes
 * through {@link #key()}.
 *
 * <p>{@link #parse} is syntactic: equal schemes ({@code s3a}/{@code s3n} are {@code s3}; a bare
 * absolute path, {@code file:/}, {@code file:///} and {@code file://localhost/} are {@code file};
 * {@code abfs}, {@code abfss}, {@code wasb} and {@code wasbs} are {@code abfss}, with the Blob and
 * the Data Lake host of one account, {@code container@account.blob.…} and
 * {@code container@account.dfs.…}, one authority), authorities that storage reads without case
 * (Azure accounts and containers, Cloud Storage buckets: all lower-case by the services' naming
 * rules) lower-cased,
 * {@code .} and {@code ..} segments, repeated and trailing slashes, and percent-escapes (decoded per
 * segment, {@code %2F} excepted so a segment never splits). {@link Resolver} adds what only the
 * local disk knows: symbolic links, resolved for every directory and for the file itself.
 *
 * <p>The rule the form keeps: two spellings of one file always get one key. The converse is not
 * promised — a local name that literally contains {@code %41} shares a key with the name that has
 * {@code A} there — and that only ever errs toward keeping a file, never toward deleting one.
 */
public record StoredFile(String scheme, String authority, String path) {
  private static final Map<String, String> EQUAL_SCHEMES =
      Map.of("s3a", "s3", "s3n", "s3", "abfs", "abfss", "wasb", "abfss", "wasbs", "abfss");
  /** An Azure storage host: {@code account.blob.core.windows.net}, {@code account.dfs.core.chinacloudapi.cn}, …. */
  private static final Pattern AZURE_HOST = Pattern.compile("^([^.@]+)\\.(?:blob|dfs)\\.(.+)$");

  private static final Pattern SCHEME =
      Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.\\-]*):(.*)$", Pattern.DOTALL);

  /** The canonical form of {@code location}, without touching storage. */
  public static StoredFile parse(String location) {
    Split s = split(location);
    return new StoredFile(s.scheme, s.authority, normalize(s.rawPath));
  }

  /** scheme://authority/path: what listed and referenced files are joined on (and how reports write it). */
  @com.fasterxml.jackson.annotation.JsonValue
  public String key() {
    return scheme + "://" + authority + path;
  }

  /** scheme://authority: what a listing root and everything under it share. */
  public String prefix() {
    return scheme + "://" + authority;
  }

  /** True for a file on this machine's disk, where links and real paths exist. */
  public boolean isLocal() {
    return "file".equals(scheme) && authority.isEmpty();
  }

  /** True when {@code other} is this location or lies below it. */
  public boolean contains(StoredFile other) {
    if (!prefix().equals(other.prefix())) {
      return false;
    }
    return other.path.equals(path) || other.path.startsWith(path.equals("/") ? "/" : path + "/");
  }

  /** The directory holding this file (itself for the root). */
  public StoredFile parent() {
    int slash = path.lastIndexOf('/');
    return new StoredFile(scheme, authority, slash <= 0 ? "/" : path.substring(0, slash));
  }

  @Override
  public String toString() {
    return key();
  }

  private record Split(String scheme, String authority, String rawPath) {}

  private static Split split(String location) {
    if (location == null || location.isBlank()) {
      throw new SafetyRefusal("an empty file location cannot be compared");
    }
    String scheme;
    String rest;
    boolean bare;
    Matcher m = SCHEME.matcher(location);
    if (m.matches() && m.group(1).length() > 1) {
      scheme = m.group(1).toLowerCase(Locale.ROOT);
      rest = m.group(2);
      bare = false;
    } else {
      scheme = "file";
      rest = location;
      bare = true; // a bare path has no authority: //wh/x is the POSIX path /wh/x
    }
    scheme = EQUAL_SCHEMES.getOrDefault(scheme, scheme);
    String authority = "";
    String path;
    if (!bare && rest.startsWith("//")) {
      int slash = rest.indexOf('/', 2);
      authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
      path = slash < 0 ? "/" : rest.substring(slash);
    } else {
      path = rest;
    }
    if ("file".equals(scheme) && "localhost".equalsIgnoreCase(authority)) {
      authority = "";
    }
    if ("abfss".equals(scheme)) {
      authority = azureAuthority(authority);
    } else if ("gs".equals(scheme)) {
      authority = authority.toLowerCase(Locale.ROOT);
    }
    if (!path.startsWith("/")) {
      throw new SafetyRefusal("location '" + location
          + "' is relative; only absolute locations can be compared safely");
    }
    return new Split(scheme, authority, path);
  }

  /**
   * One account's Blob and Data Lake endpoints serve the same objects (Data Lake Storage Gen2's
   * multi-protocol access), so {@code c@a.blob.core.windows.net} and {@code c@a.dfs.core.windows.net}
   * are one authority, written with {@code dfs}. Account and container names are lower-case by
   * Azure's rules (DNS names), so case never tells two apart.
   */
  private static String azureAuthority(String authority) {
    String lower = authority.toLowerCase(Locale.ROOT);
    int at = lower.lastIndexOf('@');
    String container = at < 0 ? "" : lower.substring(0, at + 1);
    String host = lower.substring(at + 1);
    Matcher m = AZURE_HOST.matcher(host);
    return m.matches() ? container + m.group(1) + ".dfs." + m.group(2) : lower;
  }

  /** Dot segments and empty segments first (on the raw text, so an escaped dot stays a name), then decoding. */
  private static String normalize(String rawPath) {
    List<String> segments = segments(rawPath);
    if (segments.isEmpty()) {
      return "/";
    }
    StringBuilder b = new StringBuilder(rawPath.length());
    for (String seg : segments) {
      b.append('/').append(decode(seg));
    }
    return b.toString();
  }

  /** The path's segments with empty and {@code .} ones dropped and each {@code ..} taking back one, as text. */
  private static List<String> segments(String rawPath) {
    List<String> segments = new ArrayList<>();
    for (String seg : rawPath.split("/")) {
      if (seg.isEmpty() || seg.equals(".")) {
        continue;
      }
      if (seg.equals("..")) {
        if (!segments.isEmpty()) {
          segments.remove(segments.size() - 1);
        }
        continue;
      }
      segments.add(seg);
    }
    return segments;
  }

  private static String decode(String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
    StringBuilder out = new StringBuilder(segment.length());
    int i = 0;
    while (i < segment.length()) {
      char c = segment.charAt(i);
      if (c == '%'
          && i + 2 < segment.length()
          && hex(segment.charAt(i + 1)) >= 0
          && hex(segment.charAt(i + 2)) >= 0) {
        int v = hex(segment.charAt(i + 1)) * 16 + hex(segment.charAt(i + 2));
        if (v == '/') {
          flush(bytes, out, segment);
          out.append("%2F");
        } else {
          bytes.write(v);
        }
        i += 3;
      } else {
        flush(bytes, out, segment);
        out.append(c);
        i++;
      }
    }
    flush(bytes, out, segment);
    return out.toString();
  }

  private static void flush(ByteArrayOutputStream bytes, StringBuilder out, String segment) {
    if (bytes.size() == 0) {
      return;
    }
    try {
      out.append(StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray())));
    } catch (CharacterCodingException e) {
      // not UTF-8 once decoded: keep the escapes, upper-cased so both cases of one escape agree
      for (byte x : bytes.toByteArray()) {
        out.append('%').append(String.format(Locale.ROOT, "%02X", x & 0xff));
      }
    }
    bytes.reset();
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  /**
   * Canonical forms with the local disk consulted: a local location becomes its real path — every
   * directory link resolved, and the file itself resolved when it is a link — so a file reached
   * through a symlinked warehouse, a {@code ..} through a link, or a linked data directory has the
   * key of the file it really is. Real paths of directories are cached, so a million files in a few
   * thousand directories cost a few thousand {@code realpath} calls and one {@code lstat} each.
   * Locations on object stores are only parsed. One resolver per run: the cache assumes links do not
   * change while it lives.
   */
  public static final class Resolver {
    private final Map<Path, Path> realDirs = new ConcurrentHashMap<>();

    public StoredFile resolve(String location) {
      Path real = realPath(location);
      return real == null
          ? parse(location)
          : new StoredFile("file", "", normalize(real.toString()));
    }

    /**
     * Every identity {@code location} can have, the one {@link #resolve} gives first. A {@code ..}
     * that follows a symbolic link means two places: the kernel (java.nio, realpath) follows the link
     * and then leaves its target, while Hadoop's {@code Path} (the local FileIO Iceberg uses)
     * normalizes the URI first, so {@code wh/lnk/../t/f} is {@code wh/t/f}. Which one a writer or a
     * reader meant is unknown, so a reference keeps both and an expiry candidate that matches either
     * is kept. Only local locations with a {@code ..} segment can have two; the check is a scan of
     * the string.
     */
    public List<StoredFile> resolveAll(String location) {
      StoredFile physical = resolve(location);
      Split s = split(location);
      if (!physical.isLocal() || !hasDotDot(s.rawPath)) {
        return List.of(physical);
      }
      StoredFile lexical;
      try {
        lexical = new StoredFile(
            "file", "", normalize(realFile(Path.of(lexicalRaw(s.rawPath))).toString()));
      } catch (InvalidPathException e) {
        return List.of(physical);
      }
      return lexical.equals(physical) ? List.of(physical) : List.of(physical, lexical);
    }

    /**
     * Every identity of a local file named by its path as the disk spells it, for a caller that has
     * decoded a URI itself (Delta's log paths are URIs; {@code part=x%2525y} names the directory
     * {@code part=x%25y}): the meanings of {@link #resolveAll}, but nothing is decoded a second time,
     * so the key's path is also the name to open. The lexical meaning comes first — {@code ..} taken
     * back as text, then links resolved: the file Hadoop's {@code Path}, and so Delta's readers and
     * Kernel, open — and the kernel's meaning second when a {@code ..} after a link makes it another
     * file.
     */
    public List<StoredFile> resolveAllOnDisk(Path path) {
      Path absolute = path.toAbsolutePath();
      StoredFile lexical = onDisk(realFile(absolute.normalize()));
      if (!hasDotDot(absolute.toString())) {
        return List.of(lexical);
      }
      StoredFile physical = onDisk(realFile(absolute));
      return physical.equals(lexical) ? List.of(lexical) : List.of(lexical, physical);
    }

    private static StoredFile onDisk(Path real) {
      return new StoredFile("file", "", real.toString());
    }

    private static boolean hasDotDot(String rawPath) {
      int i = rawPath.indexOf("/..");
      while (i >= 0) {
        int end = i + 3;
        if (end == rawPath.length() || rawPath.charAt(end) == '/') {
          return true;
        }
        i = rawPath.indexOf("/..", i + 1);
      }
      return false;
    }

    /** Dot segments removed as text, escapes kept: the name Hadoop opens. */
    private static String lexicalRaw(String rawPath) {
      return "/" + String.join("/", segments(rawPath));
    }

    /** The real path of a local location, as the disk spells it (escapes not decoded); null when it is not local. */
    public Path realPath(String location) {
      Split s = split(location);
      if (!"file".equals(s.scheme) || !s.authority.isEmpty()) {
        return null;
      }
      try {
        return realFile(Path.of(s.rawPath));
      } catch (InvalidPathException e) {
        return null;
      }
    }

    private Path realFile(Path raw) {
      Path parent = raw.getParent();
      Path name = raw.getFileName();
      if (parent == null || name == null) {
        return raw;
      }
      String n = name.toString();
      Path dir = realDir(parent);
      if (n.equals(".")) {
        return dir;
      }
      if (n.equals("..")) {
        return dir.getParent() == null ? dir : dir.getParent();
      }
      Path candidate = dir.resolve(n);
      if (Files.isSymbolicLink(candidate)) {
        try {
          return candidate.toRealPath();
        } catch (IOException dangling) {
          return candidate;
        }
      }
      return candidate;
    }

    /** The real path of a directory; for one that does not exist, its deepest existing ancestor's real path plus the rest. */
    private Path realDir(Path dir) {
      Path cached = realDirs.get(dir);
      if (cached != null) {
        return cached;
      }
      Path real;
      try {
        real = dir.toRealPath();
      } catch (IOException e) {
        real = dir.getParent() == null ? dir : realFile(dir);
      }
      realDirs.put(dir, real);
      return real;
    }
  }
}
