package dev.resurfacer.delta.table;

import dev.resurfacer.UsageException;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * How to reach the S3 storage of {@code s3://} Delta tables: the same property keys as an Iceberg
 * catalog's S3 settings ({@code s3.endpoint}, {@code s3.path-style-access}, {@code s3.access-key-id},
 * {@code s3.secret-access-key}, {@code s3.session-token}, {@code client.region}), read from a
 * {@code type: delta} catalog's {@code properties:}, plus {@code s3.single-writer}: the owner's
 * statement that no other process writes these tables, required where the store does not honour
 * conditional PUTs. Without keys, the SDK's default credential chain.
 *
 * <p>The same properties may hold Iceberg's {@code adls.*} keys for the catalog's Azure tables
 * ({@code adls.connection-string.<account host>}, {@code adls.auth.shared-key.account.name} and
 * {@code .key}, {@code adls.sas-token.<account host>}, …): {@link #azure}, handed to Iceberg's
 * ADLSFileIO as they are, so they mean what they mean to an Iceberg catalog; and Iceberg's
 * {@code gcs.*} keys for its Cloud Storage tables ({@code gcs.project-id}, {@code gcs.service.host},
 * {@code gcs.no-auth}, {@code gcs.oauth2.token}, …): {@link #gcs}, handed to Iceberg's GCSFileIO.
 */
public record S3Settings(
    Optional<String> endpoint,
    boolean pathStyle,
    Optional<String> accessKeyId,
    Optional<String> secretAccessKey,
    Optional<String> sessionToken,
    Optional<String> region,
    boolean singleWriter,
    Map<String, String> azure,
    Map<String, String> gcs) {
  /** The prefix of Iceberg's Azure properties. */
  static final String AZURE_PREFIX = "adls.";
  /** The prefix of Iceberg's Cloud Storage properties. */
  static final String GCS_PREFIX = "gcs.";

  public static final String SINGLE_WRITER = "s3.single-writer";
  static final Set<String> KEYS = Set.of(
      "s3.endpoint",
      "s3.path-style-access",
      "s3.access-key-id",
      "s3.secret-access-key",
      "s3.session-token",
      "client.region",
      SINGLE_WRITER);

  public S3Settings {
    azure = Map.copyOf(azure);
    gcs = Map.copyOf(gcs);
  }

  public static S3Settings defaults() {
    return new S3Settings(
        Optional.empty(),
        false,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        false,
        Map.of(),
        Map.of());
  }

  /** The S3 settings among a delta catalog's properties; {@code where} names the catalog for errors. */
  public static S3Settings of(Map<String, String> properties, String where) {
    for (String k : properties.keySet()) {
      if (!KEYS.contains(k) && !k.startsWith(AZURE_PREFIX) && !k.startsWith(GCS_PREFIX)) {
        throw new UsageException(
            where + ": unknown property '" + k + "' for Delta tables (expected one of "
                + String.join(", ", new java.util.TreeSet<>(KEYS)) + ", an adls.* or a gcs.* key)");
      }
    }
    Optional<String> key = Optional.ofNullable(properties.get("s3.access-key-id"));
    Optional<String> secret = Optional.ofNullable(properties.get("s3.secret-access-key"));
    if (key.isPresent() != secret.isPresent()) {
      throw new UsageException(where + ": s3.access-key-id and s3.secret-access-key go together");
    }
    Optional<String> endpoint = Optional.ofNullable(properties.get("s3.endpoint"));
    endpoint.ifPresent(e -> {
      URI u;
      try {
        u = URI.create(e);
      } catch (IllegalArgumentException bad) {
        throw new UsageException(where + ": s3.endpoint '" + withoutUserInfo(e) + "' is not a URL");
      }
      if (u.getScheme() == null || u.getHost() == null) {
        throw new UsageException(
            where + ": s3.endpoint '" + withoutUserInfo(e) + "' is not an http(s) URL");
      }
    });
    return new S3Settings(
        endpoint,
        bool(properties, "s3.path-style-access", where),
        key,
        secret,
        Optional.ofNullable(properties.get("s3.session-token")),
        Optional.ofNullable(properties.get("client.region")),
        bool(properties, SINGLE_WRITER, where),
        prefixed(properties, AZURE_PREFIX),
        prefixed(properties, GCS_PREFIX));
  }

  private static Map<String, String> prefixed(Map<String, String> properties, String prefix) {
    Map<String, String> out = new java.util.TreeMap<>();
    properties.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k, v);
      }
    });
    return out;
  }

  /** An endpoint as it may be shown: a {@code user:password@} in it is a secret. */
  static String withoutUserInfo(String endpoint) {
    return endpoint.replaceAll("(?<=//)[^/@]*@", "****@");
  }

  /** These settings without the single-writer acknowledgement. */
  public S3Settings withoutSingleWriter() {
    return new S3Settings(
        endpoint, pathStyle, accessKeyId, secretAccessKey, sessionToken, region, false, azure, gcs);
  }

  private static boolean bool(Map<String, String> properties, String key, String where) {
    String v = properties.get(key);
    if (v == null) {
      return false;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
        throw new UsageException(where + ": " + key + " must be true or false (got '" + v + "')");
    };
  }

  /**
   * A client for these settings. Checksums only when the operation requires them: S3-compatible
   * servers (s3proxy, older MinIO) reject the SDK's default trailing checksums.
   */
  S3Client client() {
    var b = S3Client.builder()
        .httpClientBuilder(ApacheHttpClient.builder())
        .forcePathStyle(pathStyle)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .region(Region.of(region.orElse("us-east-1")));
    endpoint.ifPresent(e -> b.endpointOverride(URI.create(e)));
    if (accessKeyId.isPresent()) {
      b.credentialsProvider(StaticCredentialsProvider.create(
          sessionToken.isPresent()
              ? AwsSessionCredentials.create(
                  accessKeyId.get(), secretAccessKey.orElseThrow(), sessionToken.get())
              : AwsBasicCredentials.create(accessKeyId.get(), secretAccessKey.orElseThrow())));
    } else {
      b.credentialsProvider(DefaultCredentialsProvider.builder().build());
    }
    return b.build();
  }

  @Override
  public String toString() {
    return "S3Settings[endpoint=" + endpoint.map(S3Settings::withoutUserInfo).orElse("(AWS)")
        + ", pathStyle=" + pathStyle + ", keys="
        + (accessKeyId.isPresent() ? "static ****" : "default chain") + ", region="
        + region.orElse("us-east-1")
        + ", singleWriter=" + singleWriter + "]";
  }
}
