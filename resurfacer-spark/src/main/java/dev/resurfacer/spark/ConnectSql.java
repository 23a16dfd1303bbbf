package dev.resurfacer.spark;

import dev.resurfacer.UsageException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
   * @param conf session conf set once connected (e.g. {@code spark.sql.shuffle.partitions})
   */
  public static ConnectSql open(String remote, Map<String, String> conf) {
    String shown = withoutParameters(remote);
    URI uri;
    try {
      uri = URI.create(shown);
    } catch (IllegalArgumentException e) {
      throw new UsageException("engines.spark.remote must be sc://host:port (got '" + shown + "')");
    }
    if (!"sc".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new UsageException("engines.spark.remote must be sc://host:port (got '" + shown + "')");
    }
    int port = uri.getPort() < 0 ? 15002 : uri.getPort();
    try (Socket probe = new Socket()) {
      probe.connect(new InetSocketAddress(uri.getHost(), port), CONNECT_TIMEOUT_MILLIS);
    } catch (java.io.IOException e) {
      throw new UsageException("cannot reach Spark Connect at " + shown + ": " + e.getMessage());
    }
    SparkSession session;
    try {
      session = (SparkSession) SparkSession.builder().remote(remote).create();
    } catch (RuntimeException e) {
      throw new UsageException("cannot open a Spark Connect session at " + shown + ": " + Messages.root(e));
    }
    conf.forEach((k, v) -> session.conf().set(k, v));
    return new ConnectSql(session, shown);
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
      scala.jdk.javaapi.CollectionConverters.asJava(m).forEach((k, v) -> out.put(plain(k), plain(v)));
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
