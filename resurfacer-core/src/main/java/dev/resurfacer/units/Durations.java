package dev.resurfacer.units;

import dev.resurfacer.UsageException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as users write them on the command line and in YAML: {@code 90d}, {@code 12h}, {@code 30m}, {@code 45s}, {@code 0s}. */
public final class Durations {
  private static final Pattern FORMAT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d|w)");

  private Durations() {}

  public static Duration parse(String text) {
    if (text == null) {
      throw new UsageException("missing duration (write it like 90d, 12h, 30m or 0s)");
    }
    Matcher m = FORMAT.matcher(text.trim().toLowerCase(java.util.Locale.ROOT));
    if (!m.matches()) {
      throw new UsageException(
          "invalid duration '" + text + "' (write it like 90d, 12h, 30m or 0s)");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      case "w" -> Duration.ofDays(7 * n);
      default -> throw new IllegalStateException(m.group(2));
    };
  }

  /** The shortest exact form: 90d, 36h, 1m, 0s. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    if (ms % 86_400_000L == 0) {
      return ms / 86_400_000L + "d";
    }
    if (ms % 3_600_000L == 0) {
      return ms / 3_600_000L + "h";
    }
    if (ms % 60_000L == 0) {
      return ms / 60_000L + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  /** An approximate human age such as {@code 3.2d} or {@code 14m}. */
  public static String humanAge(Duration d) {
    double s = d.toMillis() / 1000.0;
    if (s < 120) {
      return String.format(java.util.Locale.ROOT, "%.0fs", s);
    }
    if (s < 7200) {
      return String.format(java.util.Locale.ROOT, "%.0fm", s / 60);
    }
    if (s < 172_800) {
      return String.format(java.util.Locale.ROOT, "%.1fh", s / 3600);
    }
    return String.format(java.util.Locale.ROOT, "%.1fd", s / 86_400);
  }
}
