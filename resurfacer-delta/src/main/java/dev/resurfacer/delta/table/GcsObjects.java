package dev.resurfacer.delta.table;

import com.google.api.gax.paging.Page;
import com.google.cloud.ReadChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.iceberg.gcp.gcs.GCSFileIO;

/**
 * The Cloud Storage calls Delta tables need, on the JSON-API client Iceberg's GCSFileIO builds from
 * the catalog's {@code gcs.*} properties — the same project, endpoint ({@code gcs.service.host}),
 * credentials (Application Default Credentials, {@code gcs.oauth2.token}, {@code gcs.no-auth}) as an
 * Iceberg catalog's. The client is made on the first call, never before a {@code gs://} table is
 * opened. A bucket is the {@link dev.resurfacer.storage.StoredFile#authority} (lower case, as the
 * service names buckets); a key is the object's name as stored, never percent-decoded. Log entries
 * are created with the precondition {@code ifGenerationMatch=0}: the service refuses (412) a second
 * object of that name.
 */
public final class GcsObjects implements ObjectStore {
  private final S3Settings settings;
  private final GCSFileIO io;

  GcsObjects(S3Settings settings) {
    this.settings = settings;
    this.io = new GCSFileIO();
    io.initialize(settings.gcs());
  }

  @Override
  public String scheme() {
    return "gs";
  }

  @Override
  public String name() {
    return "Cloud Storage";
  }

  @Override
  public boolean singleWriter() {
    return settings.singleWriter();
  }

  /** The property names only: a token's value is a secret. */
  @Override
  public String describe() {
    return "GcsObjects[properties=" + settings.gcs().keySet() + "]";
  }

  private Storage client() {
    return io.client();
  }

  /** A bucket as a log may spell it ({@code gs://LAKE/…}) is the one the service names in lower case. */
  private static BlobId id(String bucket, String key) {
    return BlobId.of(bucket.toLowerCase(java.util.Locale.ROOT), key);
  }

  private static String where(String bucket, String key) {
    return "gs://" + bucket + "/" + key;
  }

  /** Every page is read: an error on any page fails the whole listing, never a partial one read as whole. */
  @Override
  public void list(String bucket, String prefix, Optional<String> delimiter, Consumer<Listed> each)
      throws IOException {
    List<Storage.BlobListOption> options =
        new ArrayList<>(List.of(Storage.BlobListOption.prefix(prefix)));
    delimiter.ifPresent(d -> options.add(Storage.BlobListOption.delimiter(d)));
    try {
      Page<Blob> page = client()
          .list(
              bucket.toLowerCase(java.util.Locale.ROOT),
              options.toArray(Storage.BlobListOption[]::new));
      while (page != null) {
        for (Blob b : page.getValues()) {
          // a delimited listing's common prefixes come back as directory entries; a name ending in
          // / is a folder placeholder
          if (b.isDirectory() || b.getName().endsWith("/")) {
            continue;
          }
          each.accept(
              new Listed(bucket, b.getName(), b.getSize() == null ? 0 : b.getSize(), time(b)));
        }
        page = page.hasNextPage() ? page.getNextPage() : null;
      }
    } catch (RuntimeException e) {
      throw new IOException("cannot list " + where(bucket, prefix) + ": " + oneLine(e), e);
    }
  }

  private static long time(Blob b) {
    Long t = b.getUpdateTime();
    return t == null ? 0 : t;
  }

  @Override
  public Optional<Listed> head(String bucket, String key) throws IOException {
    try {
      Blob b = client().get(id(bucket, key));
      if (b == null || key.endsWith("/")) {
        return Optional.empty();
      }
      return Optional.of(new Listed(bucket, key, b.getSize() == null ? 0 : b.getSize(), time(b)));
    } catch (RuntimeException e) {
      throw new IOException("cannot read " + where(bucket, key) + ": " + oneLine(e), e);
    }
  }

  /**
   * A reader from {@code from} on. The SDK opens the object on the first read, so a missing one is
   * reported there, as {@link FileNotFoundException}.
   */
  @Override
  public InputStream read(String bucket, String key, long from) throws IOException {
    ReadChannel channel;
    try {
      channel = client().reader(id(bucket, key));
      channel.seek(from);
    } catch (RuntimeException e) {
      throw new IOException("cannot read " + where(bucket, key) + ": " + oneLine(e), e);
    }
    return new FilterInputStream(Channels.newInputStream(channel)) {
      @Override
      public int read() throws IOException {
        try {
          return super.read();
        } catch (IOException | RuntimeException e) {
          throw failedRead(bucket, key, e);
        }
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        try {
          return super.read(b, off, len);
        } catch (IOException | RuntimeException e) {
          throw failedRead(bucket, key, e);
        }
      }
    };
  }

  private static IOException failedRead(String bucket, String key, Exception e) {
    if (status(e) == 404) {
      return new FileNotFoundException(where(bucket, key));
    }
    return new IOException("cannot read " + where(bucket, key) + ": " + oneLine(e), e);
  }

  @Override
  public void put(String bucket, String key, byte[] content) throws IOException {
    write(
        bucket,
        key,
        (c, info, o) -> c.createFrom(info, new ByteArrayInputStream(content), o),
        false);
  }

  @Override
  public void put(String bucket, String key, Path content) throws IOException {
    write(bucket, key, (c, info, o) -> c.createFrom(info, content, o), false);
  }

  @Override
  public void putIfAbsent(String bucket, String key, byte[] content) throws IOException {
    write(
        bucket,
        key,
        (c, info, o) -> c.createFrom(info, new ByteArrayInputStream(content), o),
        true);
  }

  @Override
  public void putIfAbsent(String bucket, String key, Path content) throws IOException {
    write(bucket, key, (c, info, o) -> c.createFrom(info, content, o), true);
  }

  /** One upload of an object's content. */
  @FunctionalInterface
  private interface Upload {
    void send(Storage client, BlobInfo info, Storage.BlobWriteOption[] options) throws IOException;
  }

  /**
   * A resumable upload (the SDK's {@code createFrom}), as GCSFileIO writes; {@code ifAbsent} adds the
   * precondition {@code ifGenerationMatch=0}, whose 412 is "it exists".
   */
  private void write(String bucket, String key, Upload upload, boolean ifAbsent)
      throws IOException {
    BlobInfo info = BlobInfo.newBuilder(id(bucket, key)).build();
    Storage.BlobWriteOption[] options = ifAbsent
        ? new Storage.BlobWriteOption[] {Storage.BlobWriteOption.doesNotExist()}
        : new Storage.BlobWriteOption[0];
    try {
      upload.send(client(), info, options);
    } catch (IOException | RuntimeException e) {
      if (ifAbsent && status(e) == 412) {
        throw new FileAlreadyExistsException(where(bucket, key));
      }
      throw new IOException("cannot write " + where(bucket, key) + ": " + oneLine(e), e);
    }
  }

  @Override
  public boolean delete(String bucket, String key) throws IOException {
    try {
      // false when there was none: gone either way
      client().delete(id(bucket, key));
      return true;
    } catch (RuntimeException e) {
      throw new IOException("cannot delete " + where(bucket, key) + ": " + oneLine(e), e);
    }
  }

  /** The HTTP status of the service's answer in {@code e}'s causes, or 0. */
  private static int status(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StorageException s) {
        return s.getCode();
      }
    }
    return 0;
  }

  /** The SDK's messages may run over several lines (the response body). */
  private static String oneLine(Throwable e) {
    int code = status(e);
    String m = String.valueOf(e.getMessage());
    String first = m.lines().findFirst().orElse(m);
    return code > 0 && !first.startsWith(String.valueOf(code)) ? code + " " + first : first;
  }

  @Override
  public void close() {
    io.close();
  }
}
