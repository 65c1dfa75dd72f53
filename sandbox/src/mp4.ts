/**
 * Deterministic, playable MP4 files without an encoder: H.264 Baseline where every macroblock is
 * I_PCM (raw samples), so any byte size can be produced and streamed from any offset.
 */

class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private count = 0;
  u(bits: number, value: number): void {
    for (let i = bits - 1; i >= 0; i--) this.bit((value >>> i) & 1);
  }
  bit(b: number): void {
    this.current = (this.current << 1) | b;
    this.count++;
    if (this.count === 8) {
      this.bytes.push(this.current);
      this.current = 0;
      this.count = 0;
    }
  }
  ue(value: number): void {
    const v = value + 1;
    const len = 32 - Math.clz32(v);
    this.u(len - 1, 0);
    this.u(len, v);
  }
  se(value: number): void {
    this.ue(value <= 0 ? -2 * value : 2 * value - 1);
  }
  alignZero(): void {
    while (this.count !== 0) this.bit(0);
  }
  trailing(): void {
    this.bit(1);
    this.alignZero();
  }
  buffer(): Buffer {
    return Buffer.from(this.bytes);
  }
}

/** Inserts emulation-prevention bytes (00 00 0x → 00 00 03 0x). */
function escapeRbsp(raw: Buffer): Buffer {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of raw) {
    if (zeros >= 2 && byte <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

function sps(widthMbs: number, heightMbs: number): Buffer {
  const w = new BitWriter();
  w.u(8, 0x67);
  w.u(8, 66); // Baseline
  w.u(8, 0xc0); // constraint_set0/1
  w.u(8, 40); // level 4.0
  w.ue(0); // sps id
  w.ue(0); // log2_max_frame_num_minus4 → 4-bit frame_num
  w.ue(2); // pic_order_cnt_type 2
  w.ue(1); // max_num_ref_frames
  w.u(1, 0); // gaps
  w.ue(widthMbs - 1);
  w.ue(heightMbs - 1);
  w.u(1, 1); // frame_mbs_only
  w.u(1, 1); // direct_8x8_inference
  w.u(1, 0); // cropping
  w.u(1, 0); // vui
  w.trailing();
  return escapeRbsp(w.buffer());
}

function pps(): Buffer {
  const w = new BitWriter();
  w.u(8, 0x68);
  w.ue(0);
  w.ue(0);
  w.u(1, 0); // CAVLC
  w.u(1, 0);
  w.ue(0); // slice groups
  w.ue(0);
  w.ue(0);
  w.u(1, 0);
  w.u(2, 0);
  w.se(0);
  w.se(0);
  w.se(0);
  w.u(1, 0); // deblocking control
  w.u(1, 0);
  w.u(1, 0);
  w.trailing();
  return escapeRbsp(w.buffer());
}

/** Slice header plus the first macroblock's mb_type, byte-aligned for the PCM samples. */
function sliceHead(idr: boolean, frameNum: number): Buffer {
  const w = new BitWriter();
  w.u(8, idr ? 0x65 : 0x61);
  w.ue(0); // first_mb_in_slice
  w.ue(7); // slice_type I (all slices)
  w.ue(0); // pps id
  w.u(4, frameNum);
  if (idr) w.ue(0); // idr_pic_id
  if (idr) {
    w.u(1, 0); // no_output_of_prior_pics
    w.u(1, 0); // long_term_reference
  } else {
    w.u(1, 0); // adaptive_ref_pic_marking_mode
  }
  w.se(0); // slice_qp_delta
  w.ue(25); // mb_type I_PCM
  w.alignZero();
  return escapeRbsp(w.buffer());
}

const MB_TYPE_PCM = Buffer.from([0x0d, 0x00]); // ue(25) + alignment, between macroblocks
const PATTERNS = 16;
const FPS = 30;
const TIMESCALE = 3000;

export interface Mp4Spec {
  bytes: number;
  aspectW: number;
  aspectH: number;
  seed: number;
}

interface Layout {
  widthMbs: number;
  heightMbs: number;
  frames: number;
  head: Buffer;
  idrSize: number;
  frameSize: number;
  padding: number;
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(body.length + 8, 0);
  header.write(type, 4, "latin1");
  return Buffer.concat([header, body]);
}
function fullBox(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
  const vf = Buffer.alloc(4);
  vf.writeUInt32BE(((version << 24) | flags) >>> 0, 0);
  return box(type, vf, ...parts);
}
function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => {
    b.writeUInt32BE(v >>> 0, i * 4);
  });
  return b;
}
function u16(...values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => {
    b.writeUInt16BE(v & 0xffff, i * 2);
  });
  return b;
}
const MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);

function frameSizes(mbs: number): { idr: number; other: number } {
  const payload = mbs * 384 + (mbs - 1) * 2 + 1;
  const other = sliceHead(false, 1).length;
  for (let n = 0; n < 16; n++) {
    if (sliceHead(false, n).length !== other) throw new Error("slice header size varies");
  }
  return { idr: 4 + sliceHead(true, 0).length + payload, other: 4 + other + payload };
}

function moovAndHead(l: Omit<Layout, "head" | "padding">): Buffer {
  const width = l.widthMbs * 16;
  const height = l.heightMbs * 16;
  const durationMs = Math.round((l.frames * 1000) / FPS);
  const mediaDuration = l.frames * (TIMESCALE / FPS);
  const ftyp = box("ftyp", Buffer.from("isom"), u32(512), Buffer.from("isomiso2avc1mp41"));
  const spsNal = sps(l.widthMbs, l.heightMbs);
  const ppsNal = pps();
  const avcC = box(
    "avcC",
    Buffer.from([1, 66, 0xc0, 40, 0xff, 0xe1]),
    u16(spsNal.length),
    spsNal,
    Buffer.from([1]),
    u16(ppsNal.length),
    ppsNal,
  );
  const compressor = Buffer.alloc(32);
  const avc1 = box(
    "avc1",
    Buffer.alloc(6),
    u16(1),
    Buffer.alloc(16),
    u16(width, height),
    u32(0x00480000, 0x00480000, 0),
    u16(1),
    compressor,
    u16(0x0018, 0xffff),
    avcC,
  );
  const sizes = Buffer.alloc(l.frames * 4);
  for (let i = 0; i < l.frames; i++) sizes.writeUInt32BE(i === 0 ? l.idrSize : l.frameSize, i * 4);
  const build = (chunkOffset: number): Buffer => {
    const stbl = box(
      "stbl",
      fullBox("stsd", 0, 0, u32(1), avc1),
      fullBox("stts", 0, 0, u32(1, l.frames, TIMESCALE / FPS)),
      fullBox("stsc", 0, 0, u32(1, 1, l.frames, 1)),
      fullBox("stsz", 0, 0, u32(0, l.frames), sizes),
      fullBox("stco", 0, 0, u32(1, chunkOffset)),
    );
    const minf = box(
      "minf",
      fullBox("vmhd", 0, 1, u16(0, 0, 0, 0)),
      box("dinf", fullBox("dref", 0, 0, u32(1), fullBox("url ", 0, 1))),
      stbl,
    );
    const mdia = box(
      "mdia",
      fullBox("mdhd", 0, 0, u32(0, 0, TIMESCALE, mediaDuration), u16(0x55c4, 0)),
      fullBox(
        "hdlr",
        0,
        0,
        u32(0),
        Buffer.from("vide"),
        u32(0, 0, 0),
        Buffer.from("VideoHandler\0"),
      ),
      minf,
    );
    const tkhd = fullBox(
      "tkhd",
      0,
      3,
      u32(0, 0, 1, 0, durationMs, 0, 0),
      u16(0, 0, 0, 0),
      MATRIX,
      u32(width << 16, height << 16),
    );
    const mvhd = fullBox(
      "mvhd",
      0,
      0,
      u32(0, 0, 1000, durationMs, 0x00010000),
      u16(0x0100, 0),
      u32(0, 0),
      MATRIX,
      u32(0, 0, 0, 0, 0, 0, 2),
    );
    const moov = box("moov", mvhd, box("trak", tkhd, mdia));
    const mdatSize = l.idrSize + (l.frames - 1) * l.frameSize + 8;
    return Buffer.concat([ftyp, moov, u32(mdatSize), Buffer.from("mdat")]);
  };
  const first = build(0);
  return build(first.length);
}

/** Picks a picture size and frame count so the file is exactly `spec.bytes` long. */
export function mp4Layout(spec: Mp4Spec): Layout {
  const bytes = Math.max(spec.bytes, 4096);
  // Aim for about three seconds, but never larger than ~640x360.
  const targetMbs = Math.max(1, Math.min(920, Math.floor(bytes / 90 / 386)));
  const aspect = spec.aspectW / spec.aspectH;
  let widthMbs = Math.max(1, Math.round(Math.sqrt(targetMbs * aspect)));
  let heightMbs = Math.max(1, Math.floor(targetMbs / widthMbs));
  if (widthMbs * heightMbs * 386 * 2 > bytes) {
    widthMbs = 1;
    heightMbs = 1;
  }
  const mbs = widthMbs * heightMbs;
  const size = frameSizes(mbs);
  let frames = Math.max(1, Math.floor(bytes / size.other));
  for (; frames >= 1; frames--) {
    const partial = { widthMbs, heightMbs, frames, idrSize: size.idr, frameSize: size.other };
    const head = moovAndHead(partial);
    const used = head.length + size.idr + (frames - 1) * size.other;
    const padding = bytes - used;
    if (padding === 0 || padding >= 8) return { ...partial, head, padding };
  }
  throw new Error(`cannot lay out an MP4 of ${bytes} bytes`);
}

function samples(widthMbs: number, mbIndex: number, t: number, seed: number): Buffer {
  const out = Buffer.alloc(384);
  const mbx = mbIndex % widthMbs;
  const mby = Math.floor(mbIndex / widthMbs);
  const base = seed % 97;
  for (let y = 0; y < 16; y++) {
    for (let x = 0; x < 16; x++) {
      const px = mbx * 16 + x;
      const py = mby * 16 + y;
      out[y * 16 + x] = 16 + ((px + py * 2 + t * 6 + base) % 200);
    }
  }
  const cb = 40 + ((seed >>> 3) % 160);
  const cr = 40 + ((seed >>> 11) % 160);
  for (let i = 0; i < 64; i++) {
    const row = Math.floor(i / 8) + mby * 8;
    out[256 + i] = Math.min(235, cb + (row % 24));
    out[320 + i] = Math.max(16, cr - (row % 24));
  }
  return out;
}

function frame(layout: Layout, index: number, seed: number): Buffer {
  const idr = index === 0;
  const head = sliceHead(idr, index % 16);
  const mbs = layout.widthMbs * layout.heightMbs;
  const size = idr ? layout.idrSize : layout.frameSize;
  const out = Buffer.alloc(size);
  out.writeUInt32BE(size - 4, 0);
  let pos = 4;
  pos += head.copy(out, pos);
  const t = index % PATTERNS;
  for (let mb = 0; mb < mbs; mb++) {
    if (mb > 0) pos += MB_TYPE_PCM.copy(out, pos);
    pos += samples(layout.widthMbs, mb, t, seed).copy(out, pos);
  }
  out[pos++] = 0x80;
  if (pos !== size) throw new Error("frame size mismatch");
  return out;
}

/** Streams bytes [start, end] (inclusive) of the MP4 described by spec. Memory stays bounded. */
export async function* mp4Bytes(spec: Mp4Spec, start = 0, end?: number): AsyncGenerator<Buffer> {
  const layout = mp4Layout(spec);
  const total = mp4TotalSize(spec);
  const last = Math.min(end ?? total - 1, total - 1);
  if (start > last) return;
  const cache = new Map<number, Buffer>();
  const frameAt = (i: number): Buffer => {
    const key = i === 0 ? -1 : i % PATTERNS;
    let f = cache.get(key);
    if (!f) {
      f = frame(layout, i === 0 ? 0 : key === 0 ? PATTERNS : key, spec.seed);
      cache.set(key, f);
    }
    return f;
  };
  let offset = 0;
  function* segments(): Generator<[number, () => Buffer]> {
    yield [layout.head.length, () => layout.head];
    yield [layout.idrSize, () => frameAt(0)];
    for (let i = 1; i < layout.frames; i++) yield [layout.frameSize, () => frameAt(i)];
    if (layout.padding > 0) {
      yield [
        layout.padding,
        () => {
          const b = Buffer.alloc(layout.padding);
          b.writeUInt32BE(layout.padding, 0);
          b.write("free", 4, "latin1");
          return b;
        },
      ];
    }
  }
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for (const [length, get] of segments()) {
    const segStart = offset;
    const segEnd = offset + length - 1;
    offset += length;
    if (segEnd < start) continue;
    if (segStart > last) break;
    const buf = get();
    const from = Math.max(0, start - segStart);
    const to = Math.min(length, last - segStart + 1);
    pending.push(buf.subarray(from, to));
    pendingBytes += to - from;
    if (pendingBytes >= 256 * 1024) {
      yield Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

export function mp4TotalSize(spec: Mp4Spec): number {
  return Math.max(spec.bytes, 4096);
}
