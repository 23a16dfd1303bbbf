package dev.resurfacer.delta.table;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 calls Delta tables need, on one client: objects addressed by bucket and key (the raw key,
 * never percent-decoded). Conditional creation is S3's {@code If-None-Match: *}; whether the store
 * honours it is {@linkplain #conditionalPutHonoured measured}, never assumed: a store that ignores
 * the header silently overwrites.
 */
public final class S3Objects implements ObjectStore {

  private final S3Client client;
  private final S3Settings settings;

  S3Objects(S3Settings settings) {
    this.settings = settings;
    this.client = settings.client();
  }

  public S3Settings settings() {
    return settings;
  }

  @Override
  public String scheme() {
    return "s3";
  }

  @Override
  public String name() {
    return "S3";
  }

  @Override
  public boolean singleWriter() {
    return settings.singleWriter();
  }

  @Override
  public String describe() {
    return settings.toString();
  }

  /** Every object whose key starts with {@code prefix}, in key order; directory placeholders (keys ending in /) left out. */
  @Override
  public void list(String bucket, String prefix, Optional<String> delimiter, Consumer<Listed> each)
      throws IOException {
    String token = null;
    try {
      do {
        var req =
            ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).continuationToken(token);
        delimiter.ifPresent(req::delimiter);
        ListObjectsV2Response page = client.listObjectsV2(req.build());
        for (S3Object o : page.contents()) {
          if (!o.key().endsWith("/")) {
            each.accept(new Listed(bucket, o.key(), o.size(), o.lastModified().toEpochMilli()));
          }
        }
        token = nextToken(page, bucket, prefix);
      } while (token != null);
    } catch (SdkException e) {
      throw new IOException("cannot list s3://" + bucket + "/" + prefix + ": " + e.getMessage(), e);
    }
  }

  public List<Listed> list(String bucket, String prefix, Optional<String> delimiter)
      throws IOException {
    List<Listed> out = new ArrayList<>();
    list(bucket, prefix, delimiter, out::add);
    return out;
  }

  /**
   * One level of a delimited listing: the common prefixes (each ending in the delimiter), whether any
   * object sits at that level, and whether the listing stopped at an object its caller was looking for.
   */
  public record Level(List<String> prefixes, boolean anyObject, boolean stopped) {
    public Level {
      prefixes = List.copyOf(prefixes);
    }
  }

  /**
   * The "directories" directly under {@code prefix} (listed with delimiter {@code /}, every page), in
   * key order. Paging ends at the first object whose key {@code stopAt} accepts ({@link Level#stopped};
   * the prefixes are then only those of the pages read).
   */
  public Level level(String bucket, String prefix, java.util.function.Predicate<String> stopAt)
      throws IOException {
    List<String> prefixes = new ArrayList<>();
    boolean any = false;
    String token = null;
    try {
      do {
        ListObjectsV2Response page = client.listObjectsV2(ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix)
            .delimiter("/")
            .continuationToken(token)
            .build());
        page.commonPrefixes().forEach(p -> prefixes.add(p.prefix()));
        for (S3Object o : page.contents()) {
          if (!o.key().equals(prefix)) {
            any = true;
          }
          if (stopAt.test(o.key())) {
            return new Level(prefixes, true, true);
          }
        }
        token = nextToken(page, bucket, prefix);
      } while (token != null);
    } catch (SdkException e) {
      throw new IOException("cannot list s3://" + bucket + "/" + prefix + ": " + e.getMessage(), e);
    }
    return new Level(prefixes, any, false);
  }

  private static String nextToken(ListObjectsV2Response page, String bucket, String prefix)
      throws IOException {
    boolean truncated = Boolean.TRUE.equals(page.isTruncated());
    if (truncated
        && (page.nextContinuationToken() == null || page.nextContinuationToken().isEmpty())) {
      // a listing that says "more" but gives no way on is partial: callers must not read it as
      // whole
      throw new IOException("cannot list s3://" + bucket + "/" + prefix
          + ": the store reported a truncated page without a continuation token");
    }
    return truncated ? page.nextContinuationToken() : null;
  }

  @Override
  public Optional<Listed> head(String bucket, String key) throws IOException {
    try {
      HeadObjectResponse h = client.headObject(b -> b.bucket(bucket).key(key));
      return Optional.of(
          new Listed(bucket, key, h.contentLength(), h.lastModified().toEpochMilli()));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return Optional.empty();
      }
      throw new IOException("cannot read s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
    } catch (SdkException e) {
      throw new IOException("cannot read s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
    }
  }

  @Override
  public InputStream read(String bucket, String key, long from) throws IOException {
    try {
      var req = GetObjectRequest.builder().bucket(bucket).key(key);
      if (from > 0) {
        req.range("bytes=" + from + "-");
      }
      return client.getObject(req.build());
    } catch (NoSuchKeyException e) {
      throw new FileNotFoundException("s3://" + bucket + "/" + key);
    } catch (SdkException e) {
      throw new IOException("cannot read s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void put(String bucket, String key, byte[] content) throws IOException {
    put(bucket, key, RequestBody.fromBytes(content));
  }

  @Override
  public void put(String bucket, String key, java.nio.file.Path content) throws IOException {
    put(bucket, key, RequestBody.fromFile(content));
  }

  public void put(String bucket, String key, RequestBody body) throws IOException {
    try {
      client.putObject(PutObjectRequest.builder().bucket(bucket).key(key).build(), body);
    } catch (SdkException e) {
      throw new IOException("cannot write s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
    }
  }

  /**
   * Creates the object only if no object of that key exists, by S3's conditional PUT
   * ({@code If-None-Match: *}): of two writers racing for one key exactly one succeeds, the other gets
   * {@link FileAlreadyExistsException}. A 409 (a conflicting conditional write still in flight) is
   * retried: reporting it as "exists" could make a committer skip a version nobody wrote.
   */
  @Override
  public void putIfAbsent(String bucket, String key, byte[] content) throws IOException {
    putIfAbsent(bucket, key, () -> RequestBody.fromBytes(content));
  }

  @Override
  public void putIfAbsent(String bucket, String key, java.nio.file.Path content)
      throws IOException {
    putIfAbsent(bucket, key, () -> RequestBody.fromFile(content));
  }

  /** As {@link #putIfAbsent(String, String, byte[])}, the body made afresh for each attempt (a file is streamed, not held). */
  public void putIfAbsent(String bucket, String key, java.util.function.Supplier<RequestBody> body)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        client.putObject(
            PutObjectRequest.builder().bucket(bucket).key(key).ifNoneMatch("*").build(),
            body.get());
        return;
      } catch (S3Exception e) {
        if (e.statusCode() == 412) {
          throw new FileAlreadyExistsException("s3://" + bucket + "/" + key);
        }
        if (e.statusCode() != 409 || attempt >= 5) {
          throw new IOException(
              "cannot create s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
        }
        try {
          Thread.sleep(50L * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IOException(
              "interrupted while creating s3://" + bucket + "/" + key, interrupted);
        }
      } catch (SdkException e) {
        throw new IOException(
            "cannot create s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
      }
    }
  }

  @Override
  public boolean delete(String bucket, String key) throws IOException {
    try {
      client.deleteObject(b -> b.bucket(bucket).key(key));
      return true;
    } catch (SdkException e) {
      throw new IOException("cannot delete s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
