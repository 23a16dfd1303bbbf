package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Chunk buffers are direct, lent at the size asked (made an eighth larger), taken back only when
 * lent and only once, and lent again.
 */
class ChunkBuffersTest {
  @Test
  void aReleasedBufferIsLentAgainAndNothingElseIsTakenBack() {
    try (ChunkBuffers buffers = new ChunkBuffers()) {
      ByteBuffer big = buffers.allocate(1000);
      ByteBuffer small = buffers.allocate(100);
      assertThat(big.isDirect()).isTrue();
      assertThat(big.position()).isZero();
      assertThat(big.remaining()).isEqualTo(1000);
      assertThat(small.remaining()).isEqualTo(100);
      assertThat(big).isNotSameAs(small);

      buffers.release(big);
      buffers.release(small);
      // the smallest free buffer that fits
      ByteBuffer again = buffers.allocate(50);
      assertThat(again).isSameAs(small);
      assertThat(again.position()).isZero();
      assertThat(again.remaining()).isEqualTo(50);
      assertThat(buffers.allocate(900)).isSameAs(big);

      // a second release of one lending, or a buffer it never lent, is not taken back
      buffers.release(again);
      buffers.release(again);
      buffers.release(ByteBuffer.allocateDirect(5000));
      ByteBuffer first = buffers.allocate(10);
      ByteBuffer second = buffers.allocate(10);
      assertThat(first).isSameAs(small);
      assertThat(second).isNotSameAs(small);
      // made an eighth larger than asked
      assertThat(second.capacity()).isEqualTo(11);
    }
  }

  @Test
  void aRequestAFewPercentLargerThanTheLastIsLentTheSameBuffer() {
    try (ChunkBuffers buffers = new ChunkBuffers()) {
      ByteBuffer first = buffers.allocate(8000);
      assertThat(first.remaining()).isEqualTo(8000);
      buffers.release(first);
      ByteBuffer larger = buffers.allocate(8900);
      assertThat(larger).isSameAs(first);
      assertThat(larger.remaining()).isEqualTo(8900);
    }
  }

  @Test
  void aBufferTooSmallForARequestIsDroppedSoAKeptScratchHoldsNoMore() {
    try (ChunkBuffers buffers = new ChunkBuffers()) {
      ByteBuffer small = buffers.allocate(100);
      buffers.release(small);
      ByteBuffer bigger = buffers.allocate(200);
      assertThat(bigger).isNotSameAs(small);
      buffers.release(bigger);

      ByteBuffer first = buffers.allocate(50);
      ByteBuffer second = buffers.allocate(50);
      assertThat(first).isSameAs(bigger);
      // the 100-byte buffer was let go when the 200 bytes were asked for
      assertThat(second).isNotSameAs(small);
      assertThat(second.capacity()).isEqualTo(56);
    }
  }

  @Test
  void aBufferHandedBackAfterCloseIsNotLentAgain() {
    ChunkBuffers buffers = new ChunkBuffers();
    ByteBuffer kept = buffers.allocate(100);
    ByteBuffer lent = buffers.allocate(100);
    buffers.release(kept);
    buffers.close();
    buffers.release(lent);
    // neither the freed nor the late one is lent again: a closed scratch makes new ones
    ByteBuffer next = buffers.allocate(100);
    assertThat(next).isNotSameAs(kept).isNotSameAs(lent);
  }
}
