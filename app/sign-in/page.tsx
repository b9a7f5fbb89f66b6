import { Suspense } from "react";
import { SignInForm } from "@/components/auth/sign-in-form.tsx";

export const dynamic = "force-dynamic";

export default function SignInPage() {
  return (
    <Suspense>
      <SignInForm />
    </Suspense>
  );
}
