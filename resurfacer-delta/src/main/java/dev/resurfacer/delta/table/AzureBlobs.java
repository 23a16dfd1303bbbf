package dev.resurfacer.delta.table;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobContainerClientBuilder;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlobInputStreamOptions;
import com.azure.storage.blob.options.BlobParallelUploadOptions;
import com.azure.storage.blob.options.BlobUploadFromFileOptions;
import com.azure.storage.file.datalake.DataLakeFileSystemClient;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;

/**
 * The Azure Blob calls Delta tables need. A bucket is a container's authority as
 * {@link dev.resurfacer.storage.StoredFile} writes it, {@code container@account.dfs.core.windows.net}.
 * Each container's client is the Blob view of the one Iceberg's ADLSFileIO builds for that location
 * from the catalog's {@code adls.*} properties — the same endpoint, credential (shared key, SAS, token
 * or the default chain) and retry policy as an Iceberg catalog's — but talks to the Blob service:
 * every account serves it, a hierarchical namespace or not, and it has the conditional write
 * ({@code If-None-Match: *}) that log entries are created by.
 */
public final class AzureBlobs implements ObjectStore {
  /** The metadata key by which a hierarchical-namespace account marks a directory in the Blob view. */
  private static final String FOLDER_MARKER = "hdi_isfolder";

  private final S3Settings settings;
  private final ADLSFileIO io;
  private final Map<String, BlobContainerClient> containers = new ConcurrentHashMap<>();

  AzureBlobs(S3Settings settings) {
    this.settings = settings;
    this.io = new ADLSFileIO();
    io.initialize(settings.azure());
  }

  @Override
  public String scheme() {
    return "abfss";
  }

  @Override
  public String name() {
    return "Azure";
  }

  @Override
  public boolean singleWriter() {
    return settings.singleWriter();
  }

  /** The property names only: their values are keys, SAS tokens and connection strings. */
  @Override
  public String describe() {
    return "AzureBlobs[properties=" + settings.azure().keySet() + "]";
  }

  /** A bucket as Kernel may spell it (an absolute log path: the Blob host, upper case) is the authority StoredFile makes of it. */
  private BlobContainerClient container(String bucket) {
    return containers.computeIfAbsent(
        dev.resurfacer.storage.StoredFile.parse("abfss://" + bucket + "/").authority(), b -> {
          DataLakeFileSystemClient fs = io.client("abfss://" + b + "/");
          return new BlobContainerClientBuilder()
              .pipeline(fs.getHttpPipeline())
              .endpoint(dev.resurfacer.storage.AzureEndpoints.blob(fs.getFileSystemUrl()))
              .buildClient();
        });
  }

  private BlobClient blob(String bucket, String key) {
    return container(bucket).getBlobClient(key);
  }

  private static String where(String bucket, String key) {
    return "abfss://" + bucket + "/" + key;
  }

  private static boolean folder(Map<String, String> metadata) {
    return metadata != null && "true".equalsIgnoreCase(metadata.get(FOLDER_MARKER));
  }

  @Override
  public void list(String bucket, String prefix, Optional<String> delimiter, Consumer<Listed> each)
      throws IOException {
    ListBlobsOptions options = new ListBlobsOptions()
        .setPrefix(prefix)
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    try {
      Iterable<BlobItem> items = delimiter.isPresent()
          ? container(bucket).listBlobsByHierarchy(delimiter.get(), options, null)
          : container(bucket).listBlobs(options, null);
      for (BlobItem b : items) {
        if (Boolean.TRUE.equals(b.isPrefix())
            || b.getName().endsWith("/")
            || folder(b.getMetadata())) {
          continue;
        }
        var p = b.getProperties();
        each.accept(new Listed(
            bucket,
            b.getName(),
            p.getContentLength() == null ? 0 : p.getContentLength(),
            p.getLastModified() == null ? 0 : p.getLastModified().toInstant().toEpochMilli()));
      }
    } catch (RuntimeException e) {
      // a failed page anywhere fails the whole listing: callers must not read a partial one as
      // whole
      throw new IOException("cannot list " + where(bucket, prefix) + ": " + oneLine(e), e);
    }
  }

  @Override
  public Optional<Listed> head(String bucket, String key) throws IOException {
    try {
      BlobProperties p = blob(bucket, key).getProperties();
      if (folder(p.getMetadata())) {
        return Optional.empty();
      }
      return Optional.of(new Listed(
          bucket, key, p.getBlobSize(), p.getLastModified().toInstant().toEpochMilli()));
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 404) {
        return Optional.empty();
      }
      throw new IOException("cannot read " + where(bucket, key) + ": " + oneLine(e), e);
    } catch (RuntimeException e) {
      throw new IOException("cannot read " + where(bucket, key) + ": " + oneLine(e), e);
    }
  }

  @Override
  public InputStream read(String bucket, String key, long from) throws IOException {
    try {
      return blob(bucket, key)
          .openInputStream(
              new BlobInputStreamOptions().setRange(new BlobRange(from)), Context.NONE);
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 404) {
        throw new FileNotFoundException(where(bucket, key));
      }
      throw new IOException("cannot read " + where(bucket, key) + ": " + oneLine(e), e);
    } catch (RuntimeException e) {
      throw new IOException("cannot read " + where(bucket, key) + ": " + oneLine(e), e);
    }
  }

  @Override
  public void put(String bucket, String key, byte[] content) throws IOException {
    write(
        bucket,
        key,
        b -> b.uploadWithResponse(
            new BlobParallelUploadOptions(BinaryData.fromBytes(content)), null, Context.NONE));
  }

  @Override
  public void put(String bucket, String key, Path content) throws IOException {
    write(
        bucket,
        key,
        b -> b.uploadFromFileWithResponse(
            new BlobUploadFromFileOptions(content.toString()), null, Context.NONE));
  }

  @Override
  public void putIfAbsent(String bucket, String key, byte[] content) throws IOException {
    write(
        bucket,
        key,
        b -> b.uploadWithResponse(
            new BlobParallelUploadOptions(BinaryData.fromBytes(content))
                .setRequestConditions(absent()),
            null,
            Context.NONE));
  }

  @Override
  public void putIfAbsent(String bucket, String key, Path content) throws IOException {
    write(
        bucket,
        key,
        b -> b.uploadFromFileWithResponse(
            new BlobUploadFromFileOptions(content.toString()).setRequestConditions(absent()),
            null,
            Context.NONE));
  }

  private static BlobRequestConditions absent() {
    return new BlobRequestConditions().setIfNoneMatch("*");
  }

  private void write(String bucket, String key, Consumer<BlobClient> upload) throws IOException {
    try {
      upload.accept(blob(bucket, key));
    } catch (BlobStorageException e) {
      throw written(bucket, key, e);
    } catch (UncheckedIOException | IllegalStateException e) {
      throw new IOException("cannot write " + where(bucket, key) + ": " + oneLine(e), e);
    }
  }

  /** 409 BlobAlreadyExists and 412 are the conditional write's "it exists"; anything else is a failure. */
  private static IOException written(String bucket, String key, BlobStorageException e) {
    if (e.getStatusCode() == 412 || BlobErrorCode.BLOB_ALREADY_EXISTS.equals(e.getErrorCode())) {
      return new FileAlreadyExistsException(where(bucket, key));
    }
    return new IOException("cannot write " + where(bucket, key) + ": " + oneLine(e), e);
  }

  @Override
  public boolean delete(String bucket, String key) throws IOException {
    try {
      blob(bucket, key).deleteIfExists();
      return true;
    } catch (RuntimeException e) {
      throw new IOException("cannot delete " + where(bucket, key) + ": " + oneLine(e), e);
    }
  }

  /** The SDK's messages run over several lines (the request, the response body). */
  private static String oneLine(Exception e) {
    String m = e instanceof BlobStorageException b
        ? b.getStatusCode() + " " + b.getErrorCode()
        : String.valueOf(e.getMessage());
    return m.lines().findFirst().orElse(m);
  }

  @Override
  public void close() {
    io.close();
  }
}
