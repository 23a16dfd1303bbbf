package dev.resurfacer.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.resurfacer.UsageException;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code serve:} section of {@code resurfacer.yml}.
 *
 * <pre>
 * serve:
 *   interval: 30s          # how often triggers are evaluated
 *   concurrency: 2         # tables maintained at once, over all catalogs
 *   min-interval: 5m       # per table, from the end of one run to the start of the next
 *   backoff: 30s           # after a catalog or storage error, doubling up to max-backoff
 *   max-backoff: 30m
 *   lease: 1h              # the table lease a run takes, as maintain's
 *   shutdown-grace: 5m     # on SIGTERM, how long running work may take to finish
 *   bind: 127.0.0.1
 *   port: 8650
 *   token: ${env:RESURFACER_SERVE_TOKEN}   # required when bind is not loopback
 *   history: resurfacer-history.db         # a SQLite file, or jdbc:postgresql://...
 *   history-user: ...
 *   history-password: ${env:HISTORY_PASSWORD}
 * </pre>
 *
 * Secret references ({@code token}, {@code history-password}) are kept as written and resolved only
 * by {@code serve} when it starts, so other verbs never need their variables set.
 *
 * @param tokenReference the token's secret reference, or null
 */
public record ServeSettings(
    Duration interval,
    int concurrency,
    Duration minInterval,
    Duration backoff,
    Duration maxBackoff,
    Duration lease,
    Duration shutdownGrace,
    String bind,
    int port,
    String tokenReference,
    String history,
    String historyUser,
    String historyPasswordReference) {

  public static final int DEFAULT_PORT = 8650;
  private static final Set<String> KEYS = Set.of(
      "interval",
      "concurrency",
      "min-interval",
      "backoff",
      "max-backoff",
      "lease",
      "shutdown-grace",
      "bind",
      "port",
      "token",
      "history",
      "history-user",
      "history-password");

  public static final ServeSettings DEFAULTS = new ServeSettings(
      Duration.ofSeconds(30),
      2,
      Duration.ofMinutes(5),
      Duration.ofSeconds(30),
      Duration.ofMinutes(30),
      Duration.ofHours(1),
      Duration.ofMinutes(5),
      "127.0.0.1",
      DEFAULT_PORT,
      null,
      "resurfacer-history.db",
      null,
      null);

  public ServeSettings withListen(String newBind, Integer newPort) {
    return with(newBind == null ? bind : newBind, newPort == null ? port : newPort, history);
  }

  public ServeSettings withHistory(String newHistory) {
    return with(bind, port, newHistory);
  }

  /** These settings listening on {@code newBind}:{@code newPort} and keeping their history in {@code newHistory}. */
  private ServeSettings with(String newBind, int newPort, String newHistory) {
    return new ServeSettings(
        interval,
        concurrency,
        minInterval,
        backoff,
        maxBackoff,
        lease,
        shutdownGrace,
        newBind,
        newPort,
        tokenReference,
        newHistory,
        historyUser,
        historyPasswordReference);
  }

  /** Whether the bind address is a loopback one, where no token is needed. */
  public boolean loopback() {
    try {
      return java.net.InetAddress.getByName(bind).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      throw new UsageException("serve.bind: unknown host " + bind);
    }
  }

  /**
   * The token requests must carry, resolved; null when none is configured. A bind address off
   * loopback without a token is refused.
   */
  public String token(Secrets secrets) {
    if (tokenReference == null) {
      if (!loopback()) {
        throw new UsageException(
            "serve.bind " + bind + " is not loopback: set serve.token to a secret reference "
                + "(${env:NAME} or ${file:PATH}) so the dashboard and /metrics require it");
      }
      return null;
    }
    String token = secrets.resolve(tokenReference, "serve.token");
    if (token.isBlank()) {
      throw new UsageException("serve.token: " + tokenReference + " resolves to an empty value");
    }
    return token;
  }

  public String historyPassword(Secrets secrets) {
    return secrets.resolve(historyPasswordReference, "serve.history-password");
  }

  /** Parses the section strictly; every error names {@code source} and the key path. */
  public static ServeSettings parse(JsonNode node, String source) {
    if (node == null || node.isNull()) {
      return DEFAULTS;
    }
    if (!node.isObject()) {
      throw new UsageException(source + ": serve must be a mapping of keys to values");
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!KEYS.contains(k)) {
        throw new UsageException(source + ": unknown key 'serve." + k + "' (expected one of "
            + String.join(", ", new TreeSet<>(KEYS)) + ")");
      }
    }
    ServeSettings d = DEFAULTS;
    String tokenRef = text(node, "token", source);
    if (tokenRef != null && !Secrets.hasReference(tokenRef)) {
      throw new UsageException(
          source
              + ": serve.token must be a secret reference (${env:NAME} or ${file:PATH}), not the token itself");
    }
    String passwordRef = text(node, "history-password", source);
    if (passwordRef != null && !Secrets.hasReference(passwordRef)) {
      throw new UsageException(source
          + ": serve.history-password must be a secret reference (${env:NAME} or ${file:PATH})");
    }
    int port = (int) number(node, "port", source, d.port(), 0, 65535);
    String bind = text(node, "bind", source);
    return new ServeSettings(
        positive(node, "interval", source, d.interval()),
        (int) number(node, "concurrency", source, d.concurrency(), 1, 64),
        duration(node, "min-interval", source, d.minInterval()),
        positive(node, "backoff", source, d.backoff()),
        positive(node, "max-backoff", source, d.maxBackoff()),
        positive(node, "lease", source, d.lease()),
        duration(node, "shutdown-grace", source, d.shutdownGrace()),
        bind == null ? d.bind() : bind,
        port,
        tokenRef,
        orDefault(text(node, "history", source), d.history()),
        text(node, "history-user", source),
        passwordRef);
  }

  private static String orDefault(String v, String fallback) {
    return v == null ? fallback : v;
  }

  private static String text(JsonNode node, String key, String source) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isValueNode()) {
      throw new UsageException(source + ": serve." + key + " must be a single value");
    }
    return v.asText();
  }

  private static long number(
      JsonNode node, String key, String source, long fallback, long min, long max) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isIntegralNumber() || v.longValue() < min || v.longValue() > max) {
      throw new UsageException(source + ": serve." + key + " must be a whole number from " + min
          + " to " + max + " (got "
          + (v.isValueNode()
              ? "'" + v.asText() + "'"
              : "a " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT))
          + ")");
    }
    return v.longValue();
  }

  private static Duration duration(JsonNode node, String key, String source, Duration fallback) {
    String s = text(node, key, source);
    if (s == null) {
      return fallback;
    }
    if (s.trim().startsWith("-")) {
      throw new UsageException(source + ": serve." + key + " must not be negative (got " + s + ")");
    }
    try {
      return Durations.parse(s.trim());
    } catch (UsageException e) {
      throw new UsageException(source + ": serve." + key + ": " + e.getMessage());
    }
  }

  private static Duration positive(JsonNode node, String key, String source, Duration fallback) {
    Duration d = duration(node, key, source, fallback);
    if (d.isZero()) {
      throw new UsageException(source + ": serve." + key + " must be greater than zero");
    }
    return d;
  }
}
