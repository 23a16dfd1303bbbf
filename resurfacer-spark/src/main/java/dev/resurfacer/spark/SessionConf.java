package dev.resurfacer.spark;

import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineSettings;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code engines.spark.conf.*}: the session conf we set on the cluster's session, on either path.
 * Values may be credentials (by reference, or by a key such as {@code spark.hadoop.fs.s3a.secret.key}):
 * Spark is told to redact those keys too, before any value is set, and a refusal names the key only,
 * with Spark's message scrubbed of every secret value.
 *
 * @param secretKeys the conf keys whose values are secrets, as Spark spells them
 */
record SessionConf(Map<String, String> values, List<String> secretKeys, EngineSettings settings) {
  /** Spark SQL's redaction of options and of the conf a statement ran with ({@code SQLConf.redactOptions}); runtime-settable. */
  static final String OPTIONS_REDACTION = "spark.sql.redaction.options.regex";

  static SessionConf of(EngineSettings settings) {
    Map<String, String> values = settings.under("conf");
    List<String> secret =
        values.keySet().stream().filter(k -> settings.isSecret("conf." + k)).toList();
    return new SessionConf(values, secret, settings);
  }

  /**
   * The keys as one regular expression alternative ({@code \Qkey\E|...}), to append to Spark's own
   * redaction patterns; empty when no value is secret.
   */
  String redactionAlternatives() {
    return secretKeys.stream().map(Pattern::quote).collect(Collectors.joining("|"));
  }

  /** {@code current} (a Spark redaction pattern) extended by {@link #redactionAlternatives()}, never replaced. */
  String extend(String current) {
    String ours = redactionAlternatives();
    if (ours.isEmpty()) {
      return current;
    }
    return current == null || current.isBlank() ? ours : current + "|" + ours;
  }

  /** Sets every value through {@code set}; a refusal is one line naming the key, with no secret in it. */
  void applyTo(BiConsumer<String, String> set) {
    values.forEach((k, v) -> {
      try {
        set.accept(k, v);
      } catch (RuntimeException e) {
        throw new UsageException(
            "engines.spark.conf." + k + ": the cluster refused it: "
                + settings.scrub(Messages.root(e)),
            e);
      }
    });
  }
}
