package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A storage location reduced to the form two writers agree on: the scheme mapped through the
 * equivalences (s3a and s3n are s3; a bare absolute path is file), the authority, and a path with
 * no repeated or trailing slashes. {@link #key()} is what listed and referenced files are joined on.
 *
 * <p>Percent-escapes are left alone on purpose: metadata and listings both carry the literal object
 * name, and decoding one side only would make a live file look unreferenced.
 */
record StorageUri(String scheme, String authority, String path) {
  static final Map<String, String> EQUAL_SCHEMES = Map.of("s3a", "s3", "s3n", "s3");

  private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.\\-]*):(.*)$", Pattern.DOTALL);

  static StorageUri parse(String location) {
    if (location == null || location.isBlank()) {
      throw new SafetyRefusal("an empty file location cannot be compared");
    }
    String scheme;
    String rest;
    Matcher m = SCHEME.matcher(location);
    if (m.matches() && m.group(1).length() > 1) {
      scheme = m.group(1).toLowerCase(Locale.ROOT);
      rest = m.group(2);
    } else {
      scheme = "file";
      rest = location;
    }
    scheme = EQUAL_SCHEMES.getOrDefault(scheme, scheme);
    String authority = "";
    String path;
    if (rest.startsWith("//")) {
      int slash = rest.indexOf('/', 2);
      authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
      path = slash < 0 ? "/" : rest.substring(slash);
    } else {
      path = rest;
    }
    if ("file".equals(scheme) && "localhost".equalsIgnoreCase(authority)) {
      authority = "";
    }
    if (!path.startsWith("/")) {
      throw new SafetyRefusal("location '" + location + "' is relative; only absolute locations can be compared safely");
    }
    return new StorageUri(scheme, authority, cleanPath(path));
  }

  private static String cleanPath(String path) {
    StringBuilder b = new StringBuilder(path.length());
    char prev = 0;
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '/' && prev == '/') {
        continue;
      }
      b.append(c);
      prev = c;
    }
    while (b.length() > 1 && b.charAt(b.length() - 1) == '/') {
      b.setLength(b.length() - 1);
    }
    return b.toString();
  }

  /** scheme://authority/path, the join key. */
  String key() {
    return scheme + "://" + authority + path;
  }

  /** scheme://authority, what a listing root and everything under it must share. */
  String prefix() {
    return scheme + "://" + authority;
  }

  /** True when {@code other} is this location or lies below it. */
  boolean contains(StorageUri other) {
    if (!prefix().equals(other.prefix())) {
      return false;
    }
    return other.path.equals(path) || other.path.startsWith(path.equals("/") ? "/" : path + "/");
  }

  @Override
  public String toString() {
    return key();
  }
}
