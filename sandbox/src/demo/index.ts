export { addComment, commentById, mediaComments, removeComment } from "./comments.ts";
export {
  createPost,
  createStory,
  imageAsset,
  type NewPostOptions,
  nextMediaId,
  videoAsset,
} from "./content.ts";
export { DAY_MS, DEMO_FB, DEMO_GOOGLE, DEMO_IG, seedBenchAccount, seedState } from "./seed.ts";
