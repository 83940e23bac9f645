package dev.periscope.browser.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** A screenshot's copy for the model: sized and compressed to fit. */
class ModelImageTest {
  private static byte[] png(int width, int height, boolean noise) throws Exception {
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Random random = new Random(7);
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        image.setRGB(x, y, noise ? random.nextInt(0x1000000) : 0x336699);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(image, "png", out);
    return out.toByteArray();
  }

  @Test
  void aLargeScreenshotIsScaledDownToFitWithItsAspect() throws Exception {
    ModelImage copy = ModelImage.of(png(2560, 1440, false));
    assertEquals(1280, copy.width());
    assertEquals(720, copy.height());
    assertTrue(copy.jpeg().length <= ModelImage.MAX_BYTES);
  }

  @Test
  void evenNoiseAtTheLargestSizeFitsAtSomeQuality() throws Exception {
    ModelImage copy = ModelImage.of(png(1280, 1280, true));
    assertTrue(copy.jpeg().length <= ModelImage.MAX_BYTES, copy.jpeg().length + " bytes");
  }
}
