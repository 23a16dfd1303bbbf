package dev.resurfacer.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@link ColumnarBatch} over given column vectors, on Kernel's public API only (kernel-defaults'
 * own batch class is internal). Kernel's write path reshapes batches (partition columns dropped,
 * schema renamed), which the interface's defaults refuse, so the reshaping methods are implemented.
 */
public record VectorBatch(StructType schema, ColumnVector[] vectors, int size)
    implements ColumnarBatch {
  @Override
  public StructType getSchema() {
    return schema;
  }

  @Override
  public ColumnVector getColumnVector(int ordinal) {
    return vectors[ordinal];
  }

  @Override
  public int getSize() {
    return size;
  }

  @Override
  public ColumnarBatch withNewColumn(int ordinal, StructField field, ColumnVector vector) {
    List<StructField> fields = new ArrayList<>(schema.fields());
    fields.add(ordinal, field);
    List<ColumnVector> all = new ArrayList<>(Arrays.asList(vectors));
    all.add(ordinal, vector);
    return new VectorBatch(new StructType(fields), all.toArray(ColumnVector[]::new), size);
  }

  @Override
  public ColumnarBatch withDeletedColumnAt(int ordinal) {
    List<StructField> fields = new ArrayList<>(schema.fields());
    fields.remove(ordinal);
    List<ColumnVector> all = new ArrayList<>(Arrays.asList(vectors));
    all.remove(ordinal);
    return new VectorBatch(new StructType(fields), all.toArray(ColumnVector[]::new), size);
  }

  @Override
  public ColumnarBatch withNewSchema(StructType newSchema) {
    return new VectorBatch(newSchema, vectors, size);
  }
}
