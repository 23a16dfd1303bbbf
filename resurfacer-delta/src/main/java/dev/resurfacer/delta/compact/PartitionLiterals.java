package dev.resurfacer.delta.compact;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.kernel.KernelInternals;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A partition's values as the log writes them (strings, null for null), typed as Kernel reads
 * them: what Kernel's write context names the partition directory by. The new files' {@code
 * partitionValues} are not re-serialized from these: they keep their inputs' strings ({@link
 * #physical}), so a timestamp written in the {@code 2024-01-01 00:00:00} form, which delta-spark
 * reads in its session time zone and Kernel in UTC, means to every reader what it meant before.
 */
final class PartitionLiterals {
  private PartitionLiterals() {}

  /** The values typed; a value Kernel cannot read as its column's type is refused, naming it. */
  static Map<String, Literal> of(
      StructType schema, List<String> partitionColumns, Map<String, String> values) {
    Map<String, Literal> out = new LinkedHashMap<>();
    for (String column : partitionColumns) {
      DataType type = schema.get(column).getDataType();
      String v = values.get(column);
      try {
        out.put(column, KernelInternals.partitionLiteral(type, v));
      } catch (RuntimeException e) {
        throw new SafetyRefusal("partition value '" + v + "' of column " + column + " is not a "
            + type.toString().toLowerCase(java.util.Locale.ROOT) + " Delta Kernel reads ("
            + Failures.oneLine(e) + "); its files are not rewritten");
      }
    }
    return out;
  }

  /** The values keyed as {@code add.partitionValues} keys them (physical names on a column-mapped table), spelled as the inputs spell them. */
  static Map<String, String> physical(
      StructType schema, List<String> partitionColumns, Map<String, String> values) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String column : partitionColumns) {
      out.put(KernelInternals.physicalName(schema.get(column)), values.get(column));
    }
    return out;
  }
}
