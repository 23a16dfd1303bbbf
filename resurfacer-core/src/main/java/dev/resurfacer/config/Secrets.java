package dev.resurfacer.config;

import dev.resurfacer.UsageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves secret references: {@code ${env:NAME}} reads an environment variable, {@code ${file:PATH}}
 * reads a file (trailing newline dropped). Error messages name the reference, never its value.
 */
public final class Secrets {
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

  private final Map<String, String> environment;

  public Secrets(Map<String, String> environment) {
    this.environment = Map.copyOf(environment);
  }

  public static boolean hasReference(String value) {
    return value != null && REFERENCE.matcher(value).find();
  }

  /** Replaces every reference in {@code value}; {@code where} names the config key for errors. */
  public String resolve(String value, String where) {
    if (value == null) {
      return null;
    }
    Matcher m = REFERENCE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String kind = m.group(1);
      String ref = m.group(2).trim();
      String resolved;
      if (kind.equals("env")) {
        resolved = environment.get(ref);
        if (resolved == null) {
          throw new UsageException(where + ": environment variable " + ref + " is not set");
        }
      } else {
        try {
          resolved = Files.readString(Path.of(ref), StandardCharsets.UTF_8).stripTrailing();
        } catch (IOException e) {
          throw new UsageException(where + ": cannot read secret file " + ref);
        }
      }
      m.appendReplacement(out, Matcher.quoteReplacement(resolved));
    }
    m.appendTail(out);
    return out.toString();
  }

  static String redactUri(String uri) {
    return uri.replaceAll("//[^/@]*:[^/@]*@", "//****@")
        .replaceAll("(?i)(password|secret|token)=[^&;]*", "$1=****");
  }

  /**
   * A key whose value is a credential by its name alone, given literally or by reference: the words
   * Spark's own {@code spark.redaction.regex} redacts ({@code secret}, {@code password}, {@code token},
   * {@code access.key}) and the names of our catalogs' credentials.
   */
  public static boolean looksSecret(String key) {
    String k = key.toLowerCase(java.util.Locale.ROOT);
    return k.contains("password")
        || k.contains("secret")
        || k.contains("token")
        || k.contains("credential")
        || k.matches(".*access[._-]?key.*")
        // the cloud stores' own key names: Azure's account key, GCS's service-account private key,
        // API keys, SAS signatures
        || k.matches(".*account[._-]?key.*")
        || k.matches(".*private[._-]?key.*")
        || k.matches(".*api[._-]?key.*")
        || k.contains("signature");
  }

  /**
   * A free-text line (an exception's message) with what looks like a credential in it replaced:
   * {@code user:password@} in any URL and the value of any {@code password=}, {@code secret.key=},
   * {@code token=}, {@code access.key=} style pair, and a SAS signature ({@code &sig=}) in a URL.
   */
  public static String redactText(String line) {
    if (line == null) {
      return null;
    }
    return line.replaceAll("//[^/@\\s]*:[^/@\\s]*@", "//****@")
        // a SAS token's signature in a URL's query (Azure: ...?sv=...&sig=...)
        .replaceAll("(?i)([?&]sig=)[^&\\s'\")]+", "$1****")
        .replaceAll(
            "(?i)((?:password|secret|token|credential|access[._-]?key|account[._-]?key|private[._-]?key|api[._-]?key|signature)"
                // key=value, key -> value, and JSON's "key":"value" (a bare "key: text" is prose,
                // as in our own errors)
                + "[\\w.-]*(?:\\s*=\\s*|\\s*->\\s*|[\"']\\s*:\\s*[\"']?))[^\\s&;,'\")]+",
            "$1****");
  }
}
