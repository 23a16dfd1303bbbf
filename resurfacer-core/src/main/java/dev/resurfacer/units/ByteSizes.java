package dev.resurfacer.units;

import dev.resurfacer.UsageException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte sizes as users write them: {@code 512MB}, {@code 1GB}, {@code 64KB}, {@code 1048576}. Units are binary (1KB = 1024). */
public final class ByteSizes {
  private static final Pattern FORMAT =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(b|kb|k|kib|mb|m|mib|gb|g|gib|tb|t|tib)?");

  private ByteSizes() {}

  public static long parse(String text) {
    if (text == null) {
      throw new UsageException("missing size (write it like 512MB or 1GB)");
    }
    Matcher m = FORMAT.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new UsageException("invalid size '" + text + "' (write it like 512MB or 1GB)");
    }
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long factor = switch (unit.charAt(0)) {
      case 'k' -> 1L << 10;
      case 'm' -> 1L << 20;
      case 'g' -> 1L << 30;
      case 't' -> 1L << 40;
      default -> 1L;
    };
    return (long) (n * factor);
  }

  public static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KB", "MB", "GB", "TB", "PB"};
    double v = bytes;
    int i = -1;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : "%.1f %s", v, units[i]);
  }
}
