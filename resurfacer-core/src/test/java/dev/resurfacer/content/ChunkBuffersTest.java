package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Chunk buffers are lent at the size asked (made an eighth larger), taken back only when lent and
 * only once, and lent again.
 */
class ChunkBuffersTest {
  @Test
  void aReleasedArrayIsLentAgainAndNothingElseIsTakenBack() {
    ChunkBuffers buffers = new ChunkBuffers();
    ByteBuffer big = buffers.allocate(1000);
    ByteBuffer small = buffers.allocate(100);
    assertThat(big.position()).isZero();
    assertThat(big.remaining()).isEqualTo(1000);
    assertThat(small.remaining()).isEqualTo(100);
    assertThat(big.array()).isNotSameAs(small.array());

    buffers.release(big);
    buffers.release(small);
    // the smallest free array that fits
    ByteBuffer again = buffers.allocate(50);
    assertThat(again.array()).isSameAs(small.array());
    assertThat(again.remaining()).isEqualTo(50);
    assertThat(buffers.allocate(900).array()).isSameAs(big.array());

    // a second release of one lending, or a buffer it never lent, is not taken back
    buffers.release(again);
    buffers.release(again);
    buffers.release(ByteBuffer.allocate(5000));
    ByteBuffer first = buffers.allocate(10);
    ByteBuffer second = buffers.allocate(10);
    assertThat(first.array()).isSameAs(small.array());
    assertThat(second.array()).isNotSameAs(small.array());
    // made an eighth larger than asked
    assertThat(second.array().length).isEqualTo(11);
  }

  @Test
  void aRequestAFewPercentLargerThanTheLastIsLentTheSameArray() {
    ChunkBuffers buffers = new ChunkBuffers();
    ByteBuffer first = buffers.allocate(8000);
    assertThat(first.remaining()).isEqualTo(8000);
    buffers.release(first);
    ByteBuffer larger = buffers.allocate(8900);
    assertThat(larger.array()).isSameAs(first.array());
    assertThat(larger.remaining()).isEqualTo(8900);
  }

  @Test
  void anArrayTooSmallForARequestIsDroppedSoAKeptScratchHoldsNoMore() {
    ChunkBuffers buffers = new ChunkBuffers();
    ByteBuffer small = buffers.allocate(100);
    buffers.release(small);
    ByteBuffer bigger = buffers.allocate(200);
    assertThat(bigger.array()).isNotSameAs(small.array());
    buffers.release(bigger);

    ByteBuffer first = buffers.allocate(50);
    ByteBuffer second = buffers.allocate(50);
    assertThat(first.array()).isSameAs(bigger.array());
    // the 100-byte array was let go when the 200 bytes were asked for
    assertThat(second.array()).isNotSameAs(small.array());
    assertThat(second.array().length).isEqualTo(56);
  }
}
