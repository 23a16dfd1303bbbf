package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Util;

/**
 * The Parquet field ids of a column-mapped table's data files, as delta-spark writes them: every
 * struct field (top-level columns and fields nested in structs, lists and maps) carries its {@code
 * delta.columnMapping.id}; a list's {@code element} and a map's {@code key} and {@code value} carry
 * one only where the table declares nested ids (icebergCompatV2 tables do). Kernel's Parquet writer
 * refuses that mix (every field an id or none), so for such a table Kernel's runner writes the
 * files without ids and this puts them into each file's footer: only the schema's {@code field_id}s
 * change, the data pages, their offsets and the footer's other contents stay as written.
 */
final class ParquetFieldIds {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  private ParquetFieldIds() {}

  /** Whether Kernel's Parquet writer takes the field ids of this physical schema as they are: all fields have one, or none does. */
  static boolean kernelWrites(StructType physical) {
    return !hasIds(physical) || nestedIdsComplete(physical);
  }

  private static boolean hasIds(StructType s) {
    return s.fields().stream().anyMatch(f -> KernelInternals.parquetFieldId(f).isPresent());
  }

  private static boolean nestedIdsComplete(StructType s) {
    for (StructField f : s.fields()) {
      if (!nestedIdsComplete(f, f.getName(), f.getDataType())) {
        return false;
      }
    }
    return true;
  }

  private static boolean nestedIdsComplete(StructField nearest, String path, DataType t) {
    if (t instanceof StructType s) {
      return nestedIdsComplete(s);
    } else if (t instanceof ArrayType a) {
      String element = path + ".element";
      return KernelInternals.parquetNestedFieldId(nearest, element).isPresent()
          && nestedIdsComplete(nearest, element, a.getElementType());
    } else if (t instanceof MapType m) {
      String key = path + ".key";
      String value = path + ".value";
      return KernelInternals.parquetNestedFieldId(nearest, key).isPresent()
          && KernelInternals.parquetNestedFieldId(nearest, value).isPresent()
          && nestedIdsComplete(nearest, key, m.getKeyType())
          && nestedIdsComplete(nearest, value, m.getValueType());
    }
    return true;
  }

  /** The schema with no field ids at any level: names, types and nullability as they were. */
  static StructType withoutIds(StructType s) {
    StructType out = new StructType();
    for (StructField f : s.fields()) {
      out = out.add(new StructField(
          f.getName(), withoutIds(f.getDataType()), f.isNullable(), FieldMetadata.empty()));
    }
    return out;
  }

  private static DataType withoutIds(DataType t) {
    if (t instanceof StructType s) {
      return withoutIds(s);
    } else if (t instanceof ArrayType a) {
      return new ArrayType(withoutIds(a.getElementType()), a.containsNull());
    } else if (t instanceof MapType m) {
      return new MapType(
          withoutIds(m.getKeyType()), withoutIds(m.getValueType()), m.isValueContainsNull());
    }
    return t;
  }

  /**
   * Rewrites the footer of the local Parquet file {@code file}, which holds the columns of {@code
   * physical} by name, giving its schema the field ids of {@code physical} (above). The file is not
   * yet referenced by the table; a failure leaves it for the caller to delete.
   */
  static void apply(Path file, StructType physical) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = ch.size();
      ByteBuffer tail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      read(ch, tail, size - 8);
      int footerLength = tail.getInt(0);
      byte[] magic = new byte[4];
      tail.position(4);
      tail.get(magic);
      if (!java.util.Arrays.equals(magic, MAGIC) || footerLength <= 0 || footerLength > size - 12) {
        throw new IOException(file + " does not end in a plain Parquet footer");
      }
      long footerStart = size - 8 - footerLength;
      ByteBuffer footer = ByteBuffer.allocate(footerLength);
      read(ch, footer, footerStart);
      FileMetaData meta = Util.readFileMetaData(new ByteArrayInputStream(footer.array()));
      Iterator<SchemaElement> elements = meta.getSchema().iterator();
      SchemaElement root = elements.next();
      setStruct(root, physical, elements, file);
      if (elements.hasNext()) {
        throw new IOException(file + " holds more columns than the table's physical schema");
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(footerLength + 64);
      Util.writeFileMetaData(meta, out);
      ByteBuffer end = ByteBuffer.allocate(8)
          .order(ByteOrder.LITTLE_ENDIAN)
          .putInt(out.size())
          .put(MAGIC);
      end.flip();
      ch.truncate(footerStart);
      ch.position(footerStart);
      write(ch, ByteBuffer.wrap(out.toByteArray()));
      write(ch, end);
      ch.force(true);
    }
  }

  /** The children of a group holding {@code struct}'s fields, in order (Kernel's writer keeps the schema's order). */
  private static void setStruct(
      SchemaElement group, StructType struct, Iterator<SchemaElement> elements, Path file)
      throws IOException {
    List<StructField> fields = struct.fields();
    if (group.getNum_children() != fields.size()) {
      throw new IOException(file + ": group " + group.getName() + " has " + group.getNum_children()
          + " columns, the schema " + fields.size());
    }
    for (StructField f : fields) {
      SchemaElement e = next(elements, f.getName(), file);
      Optional<Long> id = KernelInternals.parquetFieldId(f);
      if (id.isPresent()) {
        e.setField_id(Math.toIntExact(id.get()));
      }
      setType(e, f, f.getName(), f.getDataType(), elements, file);
    }
  }

  private static void setType(
      SchemaElement e,
      StructField nearest,
      String path,
      DataType t,
      Iterator<SchemaElement> elements,
      Path file)
      throws IOException {
    if (t instanceof StructType s) {
      setStruct(e, s, elements, file);
    } else if (t instanceof ArrayType a) {
      // 3-level list, as Kernel writes it: <name> (LIST) { repeated group list { element } }
      SchemaElement list = only(e, elements, "list", file);
      SchemaElement element = only(list, elements, "element", file);
      setNested(element, nearest, path + ".element", a.getElementType(), elements, file);
    } else if (t instanceof MapType m) {
      SchemaElement keyValue = only(e, elements, "key_value", file);
      if (keyValue.getNum_children() != 2) {
        throw new IOException(file + ": map " + e.getName() + " is not a key_value group of two");
      }
      setNested(
          next(elements, "key", file), nearest, path + ".key", m.getKeyType(), elements, file);
      setNested(
          next(elements, "value", file),
          nearest,
          path + ".value",
          m.getValueType(),
          elements,
          file);
    }
  }

  private static void setNested(
      SchemaElement e,
      StructField nearest,
      String path,
      DataType t,
      Iterator<SchemaElement> elements,
      Path file)
      throws IOException {
    Optional<Long> id = KernelInternals.parquetNestedFieldId(nearest, path);
    if (id.isPresent()) {
      e.setField_id(Math.toIntExact(id.get()));
    }
    setType(e, nearest, path, t, elements, file);
  }

  private static SchemaElement only(
      SchemaElement parent, Iterator<SchemaElement> elements, String name, Path file)
      throws IOException {
    if (parent.getNum_children() != 1) {
      throw new IOException(file + ": " + parent.getName() + " is not a group of one " + name);
    }
    return next(elements, name, file);
  }

  private static SchemaElement next(Iterator<SchemaElement> elements, String name, Path file)
      throws IOException {
    if (!elements.hasNext()) {
      throw new IOException(file + " lacks column " + name);
    }
    SchemaElement e = elements.next();
    if (!e.getName().equals(name)) {
      throw new IOException(
          file + " has column " + e.getName() + " where " + name + " was written");
    }
    return e;
  }

  private static void read(FileChannel ch, ByteBuffer into, long position) throws IOException {
    while (into.hasRemaining()) {
      if (ch.read(into, position + into.position()) < 0) {
        throw new IOException("unexpected end of file");
      }
    }
  }

  private static void write(FileChannel ch, ByteBuffer from) throws IOException {
    while (from.hasRemaining()) {
      ch.write(from);
    }
  }
}
