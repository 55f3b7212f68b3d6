"""A variational autoencoder, TF1 style (2017-2018 posts): tf.distributions Normal and
Bernoulli, the reparameterization trick, KL divergence, tf.layers, sampling the prior."""
import numpy as np
import tensorflow as tf

tfd = tf.distributions
np.random.seed(1)
tf.set_random_seed(1)

# binary "images": 4 prototypes of 16 pixels with flipped bits
protos = (np.random.rand(4, 16) > 0.5).astype(np.float32)
data = protos[np.random.randint(4, size=512)]
flip = np.random.rand(*data.shape) < 0.05
data = np.where(flip, 1 - data, data).astype(np.float32)

LATENT = 2
x = tf.placeholder(tf.float32, [None, 16], name="x")


def make_encoder(data, code_size):
    with tf.variable_scope("encoder"):
        h = tf.layers.dense(data, 32, tf.nn.relu)
        loc = tf.layers.dense(h, code_size)
        scale = tf.layers.dense(h, code_size, tf.nn.softplus)
    return tfd.Normal(loc, scale + 1e-5)


def make_prior(code_size):
    loc = tf.zeros(code_size)
    scale = tf.ones(code_size)
    return tfd.Normal(loc, scale)


def make_decoder(code, data_shape):
    with tf.variable_scope("decoder", reuse=tf.AUTO_REUSE):
        h = tf.layers.dense(code, 32, tf.nn.relu)
        logit = tf.layers.dense(h, np.prod(data_shape))
    return tfd.Bernoulli(logits=logit)


prior = make_prior(LATENT)
posterior = make_encoder(x, LATENT)
eps = tf.random_normal(tf.shape(posterior.loc))
code = posterior.loc + posterior.scale * eps  # reparameterization
likelihood = make_decoder(code, [16]).log_prob(x)
divergence = tf.reduce_sum(tfd.kl_divergence(posterior, prior), 1)
elbo = tf.reduce_mean(tf.reduce_sum(likelihood, 1) - divergence)
optimize = tf.train.AdamOptimizer(0.01).minimize(-elbo)

print("posterior", type(posterior).__name__, posterior.batch_shape, posterior.event_shape,
      posterior.dtype)
print("prior", prior.batch_shape, prior.loc.name)
print("likelihood", likelihood.shape, likelihood.dtype)
print("divergence", divergence.name, divergence.shape)
dec = make_decoder(prior.sample(5), [16])
samples = dec.mean()
modes = tf.cast(dec.probs > 0.5, tf.float32)
print("samples", samples.shape, dec.probs.name.split("/")[0])
ent = tf.reduce_mean(posterior.entropy())
std = posterior.stddev()
lp = prior.log_prob(tf.constant([[0.0, 1.0]]))
cdf = prior.cdf(tf.constant([0.0, 1.0]))
print([v.name for v in tf.trainable_variables()])

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print("prior log_prob", np.round(sess.run(lp), 5), "cdf", np.round(sess.run(cdf), 5))
    for epoch in range(6):
        perm = np.random.permutation(len(data))
        for i in range(0, len(data), 64):
            sess.run(optimize, {x: data[perm[i:i + 64]]})
        e, h, s = sess.run([elbo, ent, std], {x: data})
        print("Epoch %d elbo %.3f entropy %.3f mean std %.3f" % (epoch, e, h, s.mean()))
    recon = sess.run(make_decoder(posterior.mean(), [16]).mean(), {x: protos})
    print("reconstruction error", np.round(np.abs(recon - protos).mean(), 3) < 0.2)
    m = sess.run(modes)
    print("prior samples", m.shape, m.dtype, sorted(set(m.ravel().tolist())))
