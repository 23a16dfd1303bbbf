package dev.resurfacer.iceberg.storage;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobContainerClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.file.datalake.DataLakeFileSystemClient;
import dev.resurfacer.SafetyRefusal;
import java.util.Iterator;
import java.util.Map;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;
import org.apache.iceberg.io.FileInfo;

/**
 * Lists an Azure prefix ({@code abfs[s]://container@account.dfs.…/path}, {@code wasb[s]://…blob.…})
 * through the Blob service's List Blobs, with the client ADLSFileIO builds for that location — so
 * the same endpoint, credential (shared key, SAS, token or the default chain) and retry policy as
 * every read and delete of the table. Only this class names the Azure SDK: a run that lists no Azure
 * storage never loads it.
 */
final class AzureBlobListing implements AutoCloseable {
  /** The metadata key by which a hierarchical-namespace account marks a directory in the Blob view. */
  static final String FOLDER_MARKER = "hdi_isfolder";

  private final ADLSFileIO io;

  private AzureBlobListing(ADLSFileIO io) {
    this.io = io;
  }

  static AzureBlobListing open(Map<String, String> properties) {
    ADLSFileIO io = new ADLSFileIO();
    io.initialize(properties);
    return new AzureBlobListing(io);
  }

  Iterable<FileInfo> list(String prefix) {
    int authorityStart = prefix.indexOf("://");
    int pathStart = authorityStart < 0 ? -1 : prefix.indexOf('/', authorityStart + 3);
    if (pathStart < 0) {
      throw new SafetyRefusal(
          "cannot list '" + prefix + "': not a container@account location with a path");
    }
    String root = prefix.substring(0, pathStart);
    String blobPrefix = prefix.substring(pathStart + 1);
    DataLakeFileSystemClient fs = io.client(prefix);
    BlobContainerClient container = new BlobContainerClientBuilder()
        .pipeline(fs.getHttpPipeline())
        .endpoint(dev.resurfacer.storage.AzureEndpoints.blob(fs.getFileSystemUrl()))
        .buildClient();
    ListBlobsOptions options = new ListBlobsOptions()
        .setPrefix(blobPrefix)
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    return () -> {
      Iterator<BlobItem> blobs = container.listBlobs(options, null).iterator();
      return new Iterator<>() {
        private FileInfo next = advance();

        private FileInfo advance() {
          while (blobs.hasNext()) {
            BlobItem b = blobs.next();
            if (b.getMetadata() != null
                && "true".equalsIgnoreCase(b.getMetadata().get(FOLDER_MARKER))) {
              continue; // a directory of a hierarchical namespace, not a file
            }
            StorageFileIO.requireUnambiguous(root, b.getName());
            long size = b.getProperties().getContentLength() == null
                ? 0
                : b.getProperties().getContentLength();
            long modified = b.getProperties().getLastModified() == null
                ? 0
                : b.getProperties().getLastModified().toInstant().toEpochMilli();
            return new FileInfo(root + "/" + b.getName(), size, modified);
          }
          return null;
        }

        @Override
        public boolean hasNext() {
          return next != null;
        }

        @Override
        public FileInfo next() {
          if (next == null) {
            throw new java.util.NoSuchElementException();
          }
          FileInfo out = next;
          next = advance();
          return out;
        }
      };
    };
  }

  @Override
  public void close() {
    io.close();
  }
}
