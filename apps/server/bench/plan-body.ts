/**
 * A maximal import plan request for `npm run bench:bodies`: the compact export (as the browser
 * sends it) of `username` holding as many archived stories as fit in `maxBytes` — the most items
 * a plan of that size can hold, each a row of `import_items` and of `import_files`.
 */
export function maximalPlan(username: string, maxBytes: number): Buffer {
  const personal = JSON.stringify({
    profile_user: [{ string_map_data: { Username: { value: username } } }],
  });
  const base = 1_700_000_000;
  const head = `{"paths":["your_instagram_activity/media/stories.json","personal_information/personal_information/personal_information.json"],"files":[{"path":"personal_information/personal_information/personal_information.json","text":${JSON.stringify(personal)}},{"path":"your_instagram_activity/media/stories.json","text":"{\\"ig_stories\\":[`;
  const tail = ']}"}]}';
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const t = base + i * 600;
    const month = new Date(t * 1000).toISOString().slice(0, 7).replace("-", "");
    const id = String(17_900_000_000_000_000n + BigInt(i));
    const story = JSON.stringify({
      uri: `media/stories/${month}/${id}_n_${id}.jpg`,
      creation_timestamp: t,
      title: "",
    });
    // The story's JSON is a string inside the request's JSON: its quotes escaped.
    const piece = (i === 0 ? "" : ",") + story.replaceAll('"', '\\"');
    if (size + piece.length > maxBytes) break;
    parts.push(piece);
    size += piece.length;
  }
  return Buffer.from(head + parts.join("") + tail);
}
