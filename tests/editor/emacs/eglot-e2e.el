;;; eglot-e2e.el --- tfphi through Emacs's eglot, in batch mode  -*- lexical-binding: t -*-
;;
;; emacs --batch -l eglot-e2e.el: loads TFPHI_CONFIG (docs/editors.md's eglot configuration), opens
;; modules/cache/main.tf of the workspace TFPHI_WS, so that eglot-ensure connects it to `tfphi serve',
;; waits for the unbounded-field diagnostic to reach flymake, asks for a hover on `var.node_type'
;; through eglot's server object, and writes what the editor holds to TFPHI_OUT as JSON (the pytest
;; test compares it with a snapshot). terraform-mode is a stand-in (Debian does not package it).

(require 'eglot)
(require 'flymake)
(require 'json)

(defvar tfphi-ws (file-name-as-directory (getenv "TFPHI_WS")))
(defvar tfphi-out (getenv "TFPHI_OUT"))
(defvar tfphi-result nil)

(defun tfphi-finish (&optional error)
  "Write the result (with ERROR, if any) and leave Emacs."
  (push (cons 'errors (if error (vector (format "%s" error)) [])) tfphi-result)
  (with-temp-file tfphi-out
    (insert (json-encode tfphi-result)))
  (kill-emacs (if error 1 0)))

(defun tfphi-wait (what predicate seconds)
  "Let the server's messages in until PREDICATE holds, or fail after SECONDS naming WHAT."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall predicate)
      (tfphi-finish (format "timed out waiting for %s" what)))))

;; A stand-in for terraform-mode (MELPA's), then the configuration docs/editors.md gives for eglot.
(define-derived-mode terraform-mode prog-mode "Terraform")
(add-to-list 'auto-mode-alist '("\\.tf\\'" . terraform-mode))
(load (getenv "TFPHI_CONFIG") nil t)
;; The workspace is the project (a git checkout would be found without this).
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient tfphi-ws)))

(condition-case err
    (progn
      (find-file (expand-file-name "modules/cache/main.tf" tfphi-ws))
      ;; eglot-ensure connects after the command that opened the file; batch mode has no command loop
      (run-hooks 'post-command-hook)
      (tfphi-wait "the server" (lambda () (eglot-current-server)) 60)
      (push (cons 'server (plist-get (eglot--server-info (eglot-current-server)) :name)) tfphi-result)
      ;; flymake holds what eglot received from textDocument/publishDiagnostics
      (tfphi-wait "the unbounded-field diagnostic"
                  (lambda ()
                    (flymake-start)
                    (seq-some (lambda (d) (string-match-p "node_type" (flymake-diagnostic-text d)))
                              (flymake-diagnostics)))
                  60)
      (push (cons 'diagnostics
                  (vconcat
                   (mapcar (lambda (d)
                             (let ((beg (flymake-diagnostic-beg d)))
                               `((line . ,(line-number-at-pos beg))
                                 (column . ,(save-excursion (goto-char beg) (current-column)))
                                 (type . ,(symbol-name (flymake-diagnostic-type d)))
                                 (text . ,(flymake-diagnostic-text d)))))
                           (sort (flymake-diagnostics) (lambda (a b) (< (flymake-diagnostic-beg a)
                                                                       (flymake-diagnostic-beg b)))))))
            tfphi-result)
      ;; hover on node_type's value, as eglot asks for it (its eldoc calls the same request)
      (goto-char (point-min))
      (search-forward "var.node_type")
      (backward-char 3)
      (let ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                                    (eglot--TextDocumentPositionParams))))
        (push (cons 'hover (plist-get (plist-get hover :contents) :value)) tfphi-result))
      (eglot-shutdown (eglot-current-server))
      (push (cons 'stopped t) tfphi-result)
      (tfphi-finish))
  (error (tfphi-finish err)))
