package dev.resurfacer.spark;

import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineSettings;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connect.SparkSession;

/**
 * A Spark Connect session from this JVM (the thin client; no Spark runtime here). The endpoint is
 * probed with a plain TCP connect first, so an unreachable cluster is one clear line instead of the
 * client's retry loop.
 */
public final class ConnectSql implements SparkSql {
  private static final int CONNECT_TIMEOUT_MILLIS = 5000;
  private final SparkSession session;
  private final String remote;

  private ConnectSql(SparkSession session, String remote) {
    this.session = session;
    this.remote = remote;
  }

  /**
   * @param remote {@code sc://host:port[/;param=value...]} — parameters such as a token are passed on but never shown
   * @param conf session conf set once connected (e.g. {@code spark.sql.shuffle.partitions}); a credential-looking key's value is redacted by Spark too
   */
  public static ConnectSql open(String remote, Map<String, String> conf) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("remote", remote);
    conf.forEach((k, v) -> values.put("conf." + k, v));
    return open(new EngineSettings(SparkEngine.NAME, values, Set.of()));
  }

  /** {@code engines.spark.remote} and {@code engines.spark.conf.*}: no message carries a secret value of theirs. */
  public static ConnectSql open(EngineSettings settings) {
    String remote = settings.require("remote");
    String shown = withoutParameters(remote);
    URI uri;
    try {
      uri = URI.create(shown);
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "engines.spark.remote must be sc://host:port (got '" + settings.scrub(shown) + "')");
    }
    if (!"sc".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new UsageException(
          "engines.spark.remote must be sc://host:port (got '" + settings.scrub(shown) + "')");
    }
    int port = uri.getPort() < 0 ? 15002 : uri.getPort();
    try (Socket probe = new Socket()) {
      probe.connect(new InetSocketAddress(uri.getHost(), port), CONNECT_TIMEOUT_MILLIS);
    } catch (java.io.IOException e) {
      throw new UsageException(
          settings.scrub("cannot reach Spark Connect at " + shown + ": " + e.getMessage()));
    }
    SparkSession session;
    try {
      session = (SparkSession) SparkSession.builder().remote(remote).create();
    } catch (RuntimeException e) {
      throw new UsageException(settings.scrub(
          "cannot open a Spark Connect session at " + shown + ": " + Messages.root(e)));
    }
    try {
      SessionConf conf = SessionConf.of(settings);
      if (!conf.secretKeys().isEmpty()) {
        // the server's own spark.redaction.regex is fixed at its start; the options pattern is ours
        // to extend per session
        session
            .conf()
            .set(
                SessionConf.OPTIONS_REDACTION,
                conf.extend(session.conf().get(SessionConf.OPTIONS_REDACTION)));
      }
      conf.applyTo((k, v) -> session.conf().set(k, v));
    } catch (RuntimeException e) {
      session.close();
      throw e instanceof UsageException u
          ? u
          : new UsageException(
              settings.scrub("cannot configure the Spark Connect session at " + shown + ": "
                  + Messages.root(e)),
              e);
    }
    return new ConnectSql(session, settings.scrub(shown));
  }

  /** {@code sc://host:port/;token=...} shown as {@code sc://host:port}: parameters may carry credentials. */
  static String withoutParameters(String remote) {
    int cut = remote.indexOf("/;");
    return cut < 0 ? remote : remote.substring(0, cut);
  }

  @Override
  public List<Map<String, Object>> rows(String sql) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Row row : session.sql(sql).collectAsList()) {
      String[] names = row.schema().fieldNames();
      Map<String, Object> values = new LinkedHashMap<>();
      for (int i = 0; i < row.size(); i++) {
        values.put(names[i], plain(row.get(i)));
      }
      out.add(values);
    }
    return out;
  }

  /** Scala collections (maps, arrays) as Java ones, so callers see plain Java values only. */
  static Object plain(Object value) {
    if (value instanceof scala.collection.Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      scala.jdk.javaapi.CollectionConverters.asJava(m)
          .forEach((k, v) -> out.put(plain(k), plain(v)));
      return out;
    }
    if (value instanceof scala.collection.Seq<?> seq) {
      List<Object> out = new ArrayList<>();
      scala.jdk.javaapi.CollectionConverters.asJava(seq).forEach(v -> out.add(plain(v)));
      return out;
    }
    return value;
  }

  @Override
  public String describe() {
    return remote;
  }

  @Override
  public void close() {
    session.close();
  }
}
