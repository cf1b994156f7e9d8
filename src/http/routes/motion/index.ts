/** Every motion clip route, mounted by the clips feature. */
import type { ClipDeps } from "../../../services/clips/deps.js";
import type { Router } from "../../router.js";
import { registerCancelClip } from "./cancel-clip.js";
import { registerMotionConfig } from "./config.js";
import { registerCreateClip } from "./create-clip.js";
import { registerGetClip } from "./get-clip.js";
import { registerListClips } from "./list-clips.js";
import { registerMotionQuote } from "./quote.js";
import { registerStartClip } from "./start-clip.js";

export function registerMotionRoutes(app: Router, deps: ClipDeps) {
  registerMotionConfig(app);
  registerMotionQuote(app);
  registerCreateClip(app, deps);
  registerListClips(app, deps);
  registerGetClip(app, deps);
  registerStartClip(app, deps);
  registerCancelClip(app, deps);
}
