(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((python-mode python-ts-mode) . ("torchlint" "server"))))
(setq-default eglot-workspace-configuration
              '(:torchlint (:unsafeFixes :json-false)))
