package dev.resurfacer.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.Meta;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Fails loudly when a Kernel upgrade moves the internals {@link KernelInternals} wraps: bump
 * {@link KernelInternals#PINNED} only after reading what changed.
 */
class KernelInternalsTest {
  @Test
  void kernelIsThePinnedVersion() {
    assertThat(Meta.KERNEL_VERSION).isEqualTo(KernelInternals.PINNED);
  }

  @Test
  void theWrappedInternalsStillExist() throws Exception {
    method(
        "io.delta.kernel.internal.actions.AddFile",
        "toRemoveFileRow",
        boolean.class,
        java.util.Optional.class);
    method(
        "io.delta.kernel.internal.actions.AddFile",
        "createAddFileRow",
        io.delta.kernel.types.StructType.class,
        String.class,
        io.delta.kernel.data.MapValue.class,
        long.class,
        long.class,
        boolean.class,
        java.util.Optional.class,
        java.util.Optional.class,
        java.util.Optional.class,
        java.util.Optional.class,
        java.util.Optional.class);
    method(
        "io.delta.kernel.internal.util.InternalUtils",
        "relativizePath",
        io.delta.kernel.internal.fs.Path.class,
        java.net.URI.class);
    method(
        "io.delta.kernel.internal.util.PartitionUtils",
        "literalForPartitionValue",
        io.delta.kernel.types.DataType.class,
        String.class);
    method(
        "io.delta.kernel.internal.util.VectorUtils", "stringStringMapValue", java.util.Map.class);
    assertThat(Class.forName("io.delta.kernel.internal.util.ColumnMapping")
            .getField("PARQUET_FIELD_NESTED_IDS_METADATA_KEY")
            .get(null))
        .isEqualTo("parquet.field.nested.ids");
    method(
        "io.delta.kernel.internal.actions.SingleAction",
        "createRemoveFileSingleAction",
        io.delta.kernel.data.Row.class);
    method(
        "io.delta.kernel.internal.actions.SingleAction",
        "createAddFileSingleAction",
        io.delta.kernel.data.Row.class);
    method(
        "io.delta.kernel.internal.actions.SingleAction",
        "createCommitInfoSingleAction",
        io.delta.kernel.data.Row.class);
    method(
        "io.delta.kernel.internal.data.ScanStateRow",
        "getPhysicalDataReadSchema",
        io.delta.kernel.data.Row.class);
    method("io.delta.kernel.internal.deletionvectors.Base85Codec", "decodeUUID", String.class);
    method("io.delta.kernel.internal.deletionvectors.Base85Codec", "encodeBytes", byte[].class);
    assertThat(Class.forName("io.delta.kernel.internal.actions.DeletionVectorDescriptor")
            .getConstructor(
                String.class, String.class, java.util.Optional.class, int.class, long.class))
        .isNotNull();
    assertThat(Class.forName("io.delta.kernel.internal.data.DelegateRow")
            .getConstructor(io.delta.kernel.data.Row.class, java.util.Map.class))
        .isNotNull();
    assertThat(Class.forName(
                "io.delta.kernel.internal.commit.DefaultFileSystemManagedTableOnlyCommitter")
            .getField("INSTANCE"))
        .isNotNull();
    assertThat(Arrays.stream(
                Class.forName("io.delta.kernel.internal.actions.CommitInfo").getConstructors())
            .anyMatch(c -> c.getParameterCount() == 8))
        .isTrue();
  }

  @Test
  void inlineDeletionVectorsDecodeToTheirPositionsThroughKernelsReader() {
    long[] positions = java.util.stream.LongStream.concat(
            java.util.stream.LongStream.range(1000, 61000),
            java.util.stream.LongStream.of(0, 7, 65535, 65536, (1L << 32) - 1))
        .toArray();
    io.delta.kernel.data.Row dv = KernelInternals.inlineDeletionVector(positions);
    assertThat(dv.getString(dv.getSchema().indexOf("storageType"))).isEqualTo("i");
    assertThat(dv.getLong(dv.getSchema().indexOf("cardinality"))).isEqualTo(positions.length);
    var engine = io.delta.kernel.defaults.engine.DefaultEngine.create(
        new org.apache.hadoop.conf.Configuration());
    long[] decoded = KernelInternals.deletedPositions(engine, "file:/nowhere/", dv);
    assertThat(decoded).containsExactly(Arrays.stream(positions).sorted().toArray());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> KernelInternals.inlineDeletionVector(new long[] {3, 3}))
        .hasMessageContaining("repeat");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> KernelInternals.inlineDeletionVector(new long[] {1L << 32}))
        .hasMessageContaining("32 bits");
  }

  @Test
  void uuidDeletionVectorPathsFollowTheProtocol() {
    java.util.UUID uuid = java.util.UUID.fromString("d2c639aa-8816-431a-aaf6-d3fe2512ff61");
    String encoded = io.delta.kernel.internal.deletionvectors.Base85Codec.encodeUUID(uuid);
    assertThat(encoded).hasSize(20);
    assertThat(KernelInternals.uuidDeletionVectorRelativePath("ab" + encoded))
        .isEqualTo("ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
    assertThat(KernelInternals.uuidDeletionVectorRelativePath(encoded))
        .isEqualTo("deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  }

  @Test
  void emptyStructsLeaveTheStatsAndNumbersStayAsWritten() {
    String kernel =
        "{\"numRecords\":2,\"minValues\":{\"a\":123456789012345678901234.56789,\"s\":{},\"t\":{\"u\":{}}},"
            + "\"maxValues\":{\"a\":4.9E-324,\"s\":{\"x\":\"{}\"}},\"nullCount\":{\"a\":0,\"s\":{}}}";
    assertThat(KernelInternals.withoutEmptyObjects(kernel))
        .isEqualTo("{\"numRecords\":2,\"minValues\":{\"a\":123456789012345678901234.56789},"
            + "\"maxValues\":{\"a\":4.9E-324,\"s\":{\"x\":\"{}\"}},\"nullCount\":{\"a\":0}}");
    String plain =
        "{\"numRecords\":1,\"minValues\":{\"a\":1.0E10},\"maxValues\":{\"a\":1.0E10},\"nullCount\":{\"a\":0}}";
    assertThat(KernelInternals.withoutEmptyObjects(plain))
        .as("nothing to prune: Kernel's text")
        .isSameAs(plain);
  }

  private static Method method(String cls, String name, Class<?>... params) throws Exception {
    return Class.forName(cls).getMethod(name, params);
  }
}
