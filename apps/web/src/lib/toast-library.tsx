/**
 * The toast library and its container, loaded on the first toast (lib/toast.ts): the app shell
 * does not carry them (issue 27).
 */
import { ToastContainer } from "react-toastify";
import "react-toastify/dist/ReactToastify.css";

export { toast } from "react-toastify";

/** SPEC §2 "Global behaviour" toasts: top right, dark, 5 s, at most 20. */
export function ToastsContainer() {
  return (
    <ToastContainer
      position="top-right"
      theme="dark"
      autoClose={5000}
      closeOnClick
      pauseOnHover
      pauseOnFocusLoss
      limit={20}
      newestOnTop
      style={{ fontSize: "14px" }}
    />
  );
}
