/** What the render pool produces for one 800x480 push (SPEC 4.5 formats, 4.6 render stage). */

export const FRAME_WIDTH = 800;
export const FRAME_HEIGHT = 480;

export interface PushBitmaps {
  /** `image.png`: 1-bit grey PNG, Floyd–Steinberg dithered. */
  png: Uint8Array;
  /** `image2.raw`: 1 bpp, 48000 bytes, MSB first, row-major, 1 = white. */
  raw2: Uint8Array;
  /** `image4.raw`: 2 bpp, 96000 bytes, 4 grey levels. */
  raw4: Uint8Array;
}

/** The render pool as the rest of the service sees it (Piscina workers behind it). */
export interface Renderer {
  /**
   * Decodes an uploaded image (PNG, JPEG, BMP), fits it to 800x480 on white, dithers,
   * packs. Rejects with an AppError when the image itself cannot be rendered (415
   * `unsupported_media_type`: not a supported format or corrupt; 413 `payload_too_large`: over
   * 40 megapixels): retrying will not help. Any other rejection is transient (a worker crashed).
   */
  renderImage(source: Uint8Array): Promise<PushBitmaps>;
  close(): Promise<void>;
}
