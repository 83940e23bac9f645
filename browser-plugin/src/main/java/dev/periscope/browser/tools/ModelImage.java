package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/**
 * A screenshot's copy sized for a model: a JPEG no wider than {@link #MAX_WIDTH}, no taller than
 * {@link #MAX_HEIGHT} and no larger than {@link #MAX_BYTES}, the aspect kept; the quality steps
 * down until it fits the bytes. The full PNG stays the attachment.
 */
record ModelImage(byte[] jpeg, int width, int height) {
  static final int MAX_WIDTH = 1280;
  static final int MAX_HEIGHT = 1280;
  static final int MAX_BYTES = 400_000;
  private static final float[] QUALITIES = {0.85f, 0.7f, 0.55f, 0.4f, 0.25f};

  static ModelImage of(byte[] png) {
    try {
      BufferedImage source = ImageIO.read(new ByteArrayInputStream(png));
      double scale =
          Math.min(
              1.0,
              Math.min(
                  (double) MAX_WIDTH / source.getWidth(),
                  (double) MAX_HEIGHT / source.getHeight()));
      int width = Math.max(1, (int) Math.round(source.getWidth() * scale));
      int height = Math.max(1, (int) Math.round(source.getHeight() * scale));
      BufferedImage sized = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
      var g = sized.createGraphics();
      try {
        g.setRenderingHint(
            RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
        g.drawImage(source, 0, 0, width, height, java.awt.Color.WHITE, null);
      } finally {
        g.dispose();
      }
      byte[] jpeg = null;
      for (float quality : QUALITIES) {
        jpeg = jpeg(sized, quality);
        if (jpeg.length <= MAX_BYTES) {
          return new ModelImage(jpeg, width, height);
        }
      }
      throw BrowserException.of(
          ErrorCode.BROWSER_POLICY_DENIED,
          "the screenshot's copy for the model is "
              + jpeg.length
              + " bytes as JPEG at the lowest quality, over "
              + MAX_BYTES
              + "; take the screenshot without model_copy (the full PNG, also stored as an"
              + " attachment when this host keeps them)");
    } catch (IOException e) {
      throw new IllegalStateException("the screenshot could not be read as PNG: " + e, e);
    }
  }

  private static byte[] jpeg(BufferedImage image, float quality) throws IOException {
    ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
      writer.setOutput(stream);
      ImageWriteParam param = writer.getDefaultWriteParam();
      param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
      param.setCompressionQuality(quality);
      writer.write(null, new IIOImage(image, null, null), param);
    } finally {
      writer.dispose();
    }
    return out.toByteArray();
  }
}
