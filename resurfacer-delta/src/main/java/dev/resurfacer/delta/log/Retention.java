package dev.resurfacer.delta.log;

import dev.resurfacer.UsageException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Delta's retention table properties. Values are Spark calendar intervals ({@code interval 7 days},
 * {@code interval 1 week 2 hours}); months and years have no fixed length, so they are refused rather
 * than guessed.
 */
public final class Retention {
  public static final String DELETED_FILE_RETENTION = "delta.deletedFileRetentionDuration";
  public static final String LOG_RETENTION = "delta.logRetentionDuration";
  public static final Duration DEFAULT_DELETED_FILE_RETENTION = Duration.ofDays(7);
  public static final Duration DEFAULT_LOG_RETENTION = Duration.ofDays(30);

  private static final Pattern PART = Pattern.compile("(-?\\d+)\\s*([a-z]+)");

  private Retention() {}

  public static Duration deletedFileRetention(Map<String, String> properties) {
    return property(properties, DELETED_FILE_RETENTION, DEFAULT_DELETED_FILE_RETENTION);
  }

  public static Duration logRetention(Map<String, String> properties) {
    return property(properties, LOG_RETENTION, DEFAULT_LOG_RETENTION);
  }

  static Duration property(Map<String, String> properties, String key, Duration fallback) {
    String v = properties.get(key);
    return v == null ? fallback : parseInterval(v, key);
  }

  public static Duration parseInterval(String value, String key) {
    String s = value.trim().toLowerCase(Locale.ROOT);
    if (s.startsWith("interval")) {
      s = s.substring("interval".length()).trim();
    }
    Matcher m = PART.matcher(s);
    Duration total = Duration.ZERO;
    int end = 0;
    boolean any = false;
    while (m.find()) {
      if (!s.substring(end, m.start()).isBlank()) {
        break;
      }
      total = total.plus(unit(m.group(2), Long.parseLong(m.group(1)), key, value));
      end = m.end();
      any = true;
    }
    if (!any || !s.substring(end).isBlank()) {
      throw new UsageException(
          key + " = '" + value + "' is not an interval such as 'interval 7 days'");
    }
    if (total.isNegative()) {
      throw new UsageException(key + " = '" + value + "' is negative");
    }
    return total;
  }

  private static Duration unit(String unit, long n, String key, String value) {
    return switch (unit.endsWith("s") ? unit.substring(0, unit.length() - 1) : unit) {
      case "week" -> Duration.ofDays(7 * n);
      case "day" -> Duration.ofDays(n);
      case "hour" -> Duration.ofHours(n);
      case "minute" -> Duration.ofMinutes(n);
      case "second" -> Duration.ofSeconds(n);
      case "millisecond" -> Duration.ofMillis(n);
      case "microsecond" -> Duration.ofNanos(n * 1000);
      default ->
        throw new UsageException(key + " = '" + value + "': unit '" + unit
            + "' has no fixed length (use weeks, days, hours, minutes or seconds)");
    };
  }
}
