package dev.resurfacer.delta.table;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The object-store calls a Delta table on S3, Azure or Cloud Storage needs. Objects are addressed by bucket — the
 * {@link dev.resurfacer.storage.StoredFile#authority} of the table's files ({@code bucket} on S3,
 * {@code container@account.dfs.…} on Azure) — and key, the object's name as stored, never
 * percent-decoded. Listings leave directory placeholders (names ending in {@code /}, a hierarchical
 * namespace's folder blobs) out.
 */
public sealed interface ObjectStore extends AutoCloseable
    permits S3Objects, AzureBlobs, GcsObjects {
  /** One object as a listing or HEAD reports it. */
  record Listed(String bucket, String key, long size, long modificationTime) {}

  /** The {@link dev.resurfacer.storage.StoredFile#scheme} of this store's files: {@code s3}, {@code abfss} or {@code gs}. */
  String scheme();

  /** The store's name in messages ({@code S3}, {@code Azure}, {@code Cloud Storage}). */
  String name();

  /** The owner declared that no other process writes these tables ({@code s3.single-writer}). */
  boolean singleWriter();

  /** How to reach the store, as it may be shown (no secret). */
  String describe();

  /** Every object whose key starts with {@code prefix}, in key order; with a delimiter, only those directly at that level. */
  void list(String bucket, String prefix, Optional<String> delimiter, Consumer<Listed> each)
      throws IOException;

  Optional<Listed> head(String bucket, String key) throws IOException;

  /** The bytes from {@code from} (inclusive) to the end of the object; {@link java.io.FileNotFoundException} when there is none. */
  InputStream read(String bucket, String key, long from) throws IOException;

  void put(String bucket, String key, byte[] content) throws IOException;

  void put(String bucket, String key, Path content) throws IOException;

  /**
   * Creates the object only if none of that key exists, by the store's conditional write
   * ({@code If-None-Match: *}, on Cloud Storage {@code ifGenerationMatch=0}): of two writers racing for one key exactly one succeeds, the other
   * gets {@link FileAlreadyExistsException}.
   */
  void putIfAbsent(String bucket, String key, byte[] content) throws IOException;

  void putIfAbsent(String bucket, String key, Path content) throws IOException;

  boolean delete(String bucket, String key) throws IOException;

  /**
   * Whether the store refuses a conditional write over an existing object, tried on a scratch object
   * under {@code prefix}: write it, then conditionally write it again. Stores that ignore
   * {@code If-None-Match} on PUT (s3proxy 2.6.0 among them) overwrite and answer 200.
   */
  default boolean conditionalPutHonoured(String bucket, String prefix) throws IOException {
    String key = prefix + "conditional-put-probe-" + UUID.randomUUID();
    put(bucket, key, "probe".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    try {
      putIfAbsent(bucket, key, "probe again".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return false;
    } catch (FileAlreadyExistsException expected) {
      return true;
    } catch (IOException e) {
      // 501 NotImplemented and the like: the store does not offer it
      return false;
    } finally {
      delete(bucket, key);
    }
  }

  @Override
  void close();
}
